/**
 * Text that ends up in a message header (subject, display names, custom header values, attachment
 * file names and types). RFC 5322 allows only visible characters and white space in header field
 * bodies (§2.2, §3.2.5 `unstructured` = VCHAR / WSP, plus UTF-8 by RFC 6532): no line breaks (a
 * header injection) and no other control character (NUL, the C0 controls except HTAB, DEL).
 */
import { z } from 'zod';

/** Carriage return or line feed. */
const LINE_BREAK = /[\r\n]/;
/** The control characters RFC 5322 forbids in header field bodies, other than CR and LF. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
/** Every forbidden character, CR and LF included (global, for {@link stripHeaderControls}). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const FORBIDDEN = /[\u0000-\u0008\n\u000b\u000c\r\u000e-\u001f\u007f]+/g;

/**
 * zod schema of header text: a string of `min`..`max` characters (no bounds when absent) without
 * line breaks or control characters. `label` starts the messages, for example `Subject must not
 * contain line breaks`.
 */
export function headerText(label: string, limits: { min?: number; max?: number } = {}) {
  let text = z.string();
  if (limits.min !== undefined) text = text.min(limits.min);
  if (limits.max !== undefined) text = text.max(limits.max);
  return text.superRefine((value, context) => {
    if (LINE_BREAK.test(value)) {
      context.addIssue({ code: 'custom', message: `${label} must not contain line breaks` });
    } else if (CONTROL.test(value)) {
      context.addIssue({
        code: 'custom',
        message: `${label} must not contain control characters such as NUL (RFC 5322)`,
      });
    }
  });
}

/**
 * `text` made fit for a header: each run of line breaks and control characters becomes one space
 * (for rendered subjects, whose variables may hold anything).
 */
export function stripHeaderControls(text: string): string {
  return text.replace(FORBIDDEN, ' ');
}
