/**
 * An HTML document (`html`) shown in a sandboxed frame: no scripts, no forms, no same origin, no
 * navigation out. Each document gets a frame of its own: Chromium runs a sandboxed frame in a
 * process of its own, and a `srcdoc` changed in place there is not always laid out again.
 */
export function SandboxedFrame({
  title,
  html,
  height,
  radius,
}: {
  title: string;
  html: string;
  /** Height of the frame, px. */
  height: number;
  radius: 'sm' | 'md';
}) {
  return (
    <iframe
      key={html}
      title={title}
      sandbox=""
      srcDoc={html}
      style={{
        width: '100%',
        height,
        border: '1px solid var(--mantine-color-gray-4)',
        borderRadius: `var(--mantine-radius-${radius})`,
        background: 'white',
      }}
    />
  );
}
