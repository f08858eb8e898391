// Admin → AI: the provider (AI Settings), the guardrails, the SRE report schedule and the
// prompt audit. Writes need an admin's session; the agent never returns the provider key.
import { mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, unwrap, type Answer, type Body } from '../client';

export type AiSettings = Answer<'get_settings_ai'>;
export type AiSettingsChange = Body<'put_admin_ai_settings'>;
export type Guardrails = Answer<'get_admin_ai_guardrails'>;
export type ReportSchedule = Answer<'get_admin_ai_reports'>;
export type PromptLogEntry = Answer<'get_admin_ai_prompt_log'>['items'][number];

const aiKey = ['admin', 'ai'] as const;
const settingsKey = [...aiKey, 'settings'] as const;
const guardrailsKey = [...aiKey, 'guardrails'] as const;
const reportsKey = [...aiKey, 'reports'] as const;

export const aiSettings = () => queryOptions({ queryKey: settingsKey, queryFn: () => unwrap(api.GET('/settings/ai')) });

export const updateAiSettings = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (change: AiSettingsChange) => unwrap(api.PUT('/admin/ai/settings', { body: change })),
    onSuccess: (saved) => queryClient.setQueryData(settingsKey, saved),
  });

export const testConnection = () => mutationOptions({ mutationFn: () => unwrap(api.POST('/admin/ai/test-connection')) });

export const guardrails = () => queryOptions({ queryKey: guardrailsKey, queryFn: () => unwrap(api.GET('/admin/ai/guardrails')) });

/** Guardrails decide whether a run reaches a model (residency, egress, the switch): AI Settings' readiness changes with them. */
export const updateGuardrails = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (next: Guardrails) => unwrap(api.PUT('/admin/ai/guardrails', { body: next })),
    onSuccess: async (saved) => {
      queryClient.setQueryData(guardrailsKey, saved);
      await queryClient.invalidateQueries({ queryKey: settingsKey });
    },
  });

export const reportSchedule = () => queryOptions({ queryKey: reportsKey, queryFn: () => unwrap(api.GET('/admin/ai/reports')) });

export const updateReportSchedule = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (schedule: ReportSchedule) => unwrap(api.PUT('/admin/ai/reports', { body: schedule })),
    onSuccess: (saved) => queryClient.setQueryData(reportsKey, saved),
  });

/** A report now: stored with the Diagnose results, so their lists are refreshed. */
export const runReport = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: () => unwrap(api.POST('/admin/ai/reports/run')),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['copilot', 'answers'] }),
  });

export const promptLog = () => queryOptions({ queryKey: [...aiKey, 'prompt-log'], queryFn: () => unwrap(api.GET('/admin/ai/prompt-log', { params: { query: { limit: '20' } } })) });
