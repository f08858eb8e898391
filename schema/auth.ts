import * as v from 'valibot';
import { Role } from './access.ts';

export const LoginInput = v.object({
  username: v.pipe(v.string(), v.nonEmpty('username is required'), v.maxLength(256)),
  password: v.pipe(v.string(), v.nonEmpty('password is required'), v.maxLength(1024)),
});

export const Me = v.object({
  username: v.string(),
  role: Role,
  auth_method: v.literal('password'),
});
export type Me = v.InferOutput<typeof Me>;

export const LoginOutput = v.object({ user: Me });
export const LogoutOutput = v.object({ status: v.literal('signed_out') });
