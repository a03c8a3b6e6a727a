/**
 * Liquid rendering for previews, with the very engine and configuration the platform renders
 * emails with (`@stamp/platform/templating/engine.ts`, which needs no Node module).
 */
import {
  liquidEngine,
  liquidErrorParts,
  rewriteFallbacks,
} from '@stamp/platform/templating/engine.ts';

/** Words for a Liquid error, as the API words them: `Liquid syntax error on line 3: <reason>`. */
export function describeLiquidError(error: unknown): string {
  const { line, reason } = liquidErrorParts(error);
  return `Liquid syntax error${line === null ? '' : ` on line ${String(line)}`}: ${reason}`;
}

/**
 * Renders `source` with `scope`: `html` escapes output (an email body), `text` does not (a
 * subject line).
 * @throws Error (a liquidjs error; see {@link describeLiquidError}) on invalid Liquid.
 */
export async function renderLiquid(
  source: string,
  kind: 'html' | 'text',
  scope: Record<string, unknown>,
): Promise<string> {
  return String(await liquidEngine(kind).parseAndRender(rewriteFallbacks(source), scope));
}
