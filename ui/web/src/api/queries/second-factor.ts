// Your second factor (TOTP): its status, enrolling (secret and QR code, then a code to
// confirm) and turning it off (with a code).
import { mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../client';

const secondFactorKey = ['account', 'second-factor'] as const;

export const secondFactor = () => queryOptions({ queryKey: secondFactorKey, queryFn: () => unwrap(api.GET('/me/second-factor')) });

/** Starts enrolment; nothing changes until a code confirms it, so nothing is invalidated. */
export const beginEnrolment = () => mutationOptions({ mutationFn: () => unwrap(api.POST('/me/second-factor/enrol')) });

export const confirmEnrolment = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (code: string) => unwrap(api.POST('/me/second-factor/confirm', { body: { code } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: secondFactorKey }),
  });

export const disableSecondFactor = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (code: string) => unwrap(api.POST('/me/second-factor/disable', { body: { code } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: secondFactorKey }),
  });
