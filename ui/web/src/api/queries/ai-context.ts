// AI Context documents: anyone signed in reads them; an admin's session writes them.
import { mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, unwrap, type Answer, type Body } from '../client';

export type ContextDocuments = Answer<'get_ai_context'>;
export type ContextDocument = Answer<'get_ai_context_by_id'>;
export type ContextDocumentInput = Body<'post_admin_ai_context'>;

const contextKey = ['ai', 'context'] as const;

export const contextDocuments = () => queryOptions({ queryKey: [...contextKey, 'list'], queryFn: () => unwrap(api.GET('/ai/context')) });

export const contextDocument = (id: number) =>
  queryOptions({ queryKey: [...contextKey, 'by-id', id], queryFn: () => unwrap(api.GET('/ai/context/{id}', { params: { path: { id: String(id) } } })) });

export const createContextDocument = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (doc: ContextDocumentInput) => unwrap(api.POST('/admin/ai/context', { body: doc })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: contextKey }),
  });

export const updateContextDocument = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: ({ id, ...doc }: ContextDocumentInput & { id: number }) => unwrap(api.PUT('/admin/ai/context/{id}', { params: { path: { id: String(id) } }, body: doc })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: contextKey }),
  });

export const deleteContextDocument = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (id: number) => unwrap(api.DELETE('/admin/ai/context/{id}', { params: { path: { id: String(id) } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: contextKey }),
  });
