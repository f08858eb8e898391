// A form's save error where the person will look for it: a 400 naming a field beside that field
// (the input marked invalid and described by the message), a 402 as the upgrade card, anything
// else (or a field the form does not show) under the buttons.
import type { ReactNode } from 'react';
import { ApiError } from '../api/client';
import { ActionError, ErrorView } from './states';

/** The agent's message when `error` is a refusal of `field`, else null. */
export function fieldProblem(error: unknown, field: string): string | null {
  return error instanceof ApiError && error.body.field === field ? error.body.message : null;
}

/**
 * One labelled input with its field's error: `input` gets the aria attributes that tie it to
 * the message. `id` must be unique on the page (it names the message element).
 */
export function Field({ id, label, field, error, input, hint }: { id: string; label: ReactNode; field: string; error: unknown; input: (a11y: { 'aria-invalid': boolean; 'aria-describedby'?: string }) => ReactNode; hint?: ReactNode }) {
  const problem = fieldProblem(error, field);
  return (
    <div className="field">
      <label>
        {label}
        {input({ 'aria-invalid': problem !== null, ...(problem !== null ? { 'aria-describedby': `${id}-error` } : {}) })}
      </label>
      {hint}
      {problem !== null ? (
        <span id={`${id}-error`} role="alert" className="error">
          {field}: {problem}
        </span>
      ) : null}
    </div>
  );
}

/** What `Field`s do not show: the upgrade card for a 402, or the error under the buttons. */
export function FormError({ error, what, fields }: { error: unknown; what: string; fields: readonly string[] }) {
  if (error === null || error === undefined) return null;
  if (error instanceof ApiError && error.status === 402) return <ErrorView error={error} />;
  if (error instanceof ApiError && error.body.field !== undefined && fields.includes(error.body.field)) return null;
  return <ActionError error={error} what={what} />;
}
