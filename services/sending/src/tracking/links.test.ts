import { Secrets } from '@stamp/platform';

import {
  clickUrl,
  instrumentHtml,
  isTracked,
  openUrl,
  readClickToken,
  readOpenToken,
} from './links.ts';

const secrets = new Secrets('tracking-test-secret-0123456789abcdef');
const links = { publicUrl: 'https://mail.example.com/', secrets };
const tokenOf = (url: string): string => url.slice(url.lastIndexOf('/') + 1);

/** The tracked hrefs of `html`, decoded back to their original URLs. */
function trackedTargets(html: string): string[] {
  return [...html.matchAll(/href="https:\/\/mail\.example\.com\/t\/c\/([^"]+)"/g)].map(
    (match) => readClickToken(secrets, match[1] ?? '')?.url ?? 'unreadable',
  );
}

describe('tracking links', () => {
  it('sign the email id and the URL, and read back only what they signed', () => {
    const open = openUrl(links, 'email-1');
    expect(open).toMatch(/^https:\/\/mail\.example\.com\/t\/o\/[\w-]+\.[\w-]+$/);
    expect(readOpenToken(secrets, tokenOf(open))).toBe('email-1');

    const click = clickUrl(links, 'email-1', 'https://shop.example/a?b=1&c=2');
    expect(readClickToken(secrets, tokenOf(click))).toEqual({
      emailId: 'email-1',
      url: 'https://shop.example/a?b=1&c=2',
    });
    // A click token is no open token and the reverse: the purposes differ.
    expect(readOpenToken(secrets, tokenOf(click))).toBeNull();
    expect(readClickToken(secrets, tokenOf(open))).toBeNull();
  });

  it('refuse tampered, foreign and non-web tokens', () => {
    const token = tokenOf(clickUrl(links, 'email-1', 'https://shop.example/'));
    const [payload, mac] = token.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify(['email-1', 'https://evil.example/'])).toString(
      'base64url',
    );
    expect(readClickToken(secrets, `${forged}.${mac}`)).toBeNull();
    expect(readClickToken(secrets, `${payload}.${mac.slice(0, -2)}AA`)).toBeNull();
    expect(readClickToken(secrets, '')).toBeNull();
    expect(readClickToken(secrets, 'not-a-token')).toBeNull();
    const other = new Secrets('another-secret-entirely-0123456789abcdef');
    expect(readClickToken(other, token)).toBeNull();
    // Signed by us, but not a web URL: never a redirect target.
    const script = secrets.sign('track-click', JSON.stringify(['email-1', 'javascript:alert(1)']));
    expect(readClickToken(secrets, script)).toBeNull();
    const shape = secrets.sign(
      'track-click',
      JSON.stringify({ emailId: 'e', url: 'https://x.y/' }),
    );
    expect(readClickToken(secrets, shape)).toBeNull();
    expect(readOpenToken(secrets, secrets.sign('track-open', ''))).toBeNull();
  });

  it('rewrite web links, keep the rest of the document, and put the pixel before </body>', () => {
    const html =
      "<html><body>\n<p class=intro>Hi <A HREF='https://shop.example/a?x=1&amp;y=2' target=_blank>shop</A>,\n" +
      '<a href="mailto:help@example.org">mail us</a> <a href="#top">top</a> <a>no href</a>\n' +
      '<a href="https://mail.example.com/unsubscribe/abc">unsubscribe</a>\n' +
      '<a href="https://mail.example.com/manage/abc">manage</a>\n' +
      '<a href=" http://blog.example/post ">blog</a></p>\n</body></html>';
    const out = instrumentHtml(html, 'email-7', links);
    expect(trackedTargets(out)).toEqual([
      'https://shop.example/a?x=1&y=2',
      'http://blog.example/post',
    ]);
    // The rewritten tag keeps its other attributes; the other links are untouched.
    expect(out).toMatch(
      /<a href="https:\/\/mail\.example\.com\/t\/c\/[^"]+" target="_blank">shop<\/A>/,
    );
    expect(out).toContain('<a href="mailto:help@example.org">mail us</a>');
    expect(out).toContain('<a href="#top">top</a> <a>no href</a>');
    expect(out).toContain('<a href="https://mail.example.com/unsubscribe/abc">unsubscribe</a>');
    expect(out).toContain('<a href="https://mail.example.com/manage/abc">manage</a>');
    expect(out.startsWith('<html><body>\n<p class=intro>Hi ')).toBe(true);
    const pixel =
      /<img src="(https:\/\/mail\.example\.com\/t\/o\/[^"]+)" width="1" height="1"[^>]*>\n?<\/body><\/html>$/.exec(
        out,
      );
    expect(pixel).not.toBeNull();
    expect(readOpenToken(secrets, tokenOf(pixel?.[1] ?? ''))).toBe('email-7');
    expect(instrumentHtml(html, 'email-7', links)).toBe(out);
  });

  it('append the pixel to a fragment, and survive malformed markup', () => {
    const fragment = '<p>Read <a href="https://docs.example/">the docs</a></p>';
    const out = instrumentHtml(fragment, 'e', links);
    expect(out).toMatch(/^<p>Read <a href="[^"]+">the docs<\/a><\/p><img src="[^"]+\/t\/o\/[^"]+"/);
    const broken = '<p>un<b>closed <a href="https://x.example/?q=<>">x</a><div';
    const tracked = instrumentHtml(broken, 'e', links);
    expect(trackedTargets(tracked)).toEqual(['https://x.example/?q=<>']);
    // A quote in a URL is escaped in the written attribute.
    const quoted = instrumentHtml(`<a href='https://q.example/"x"'>q</a>`, 'e', links);
    expect(trackedTargets(quoted)).toEqual(['https://q.example/"x"']);
    expect(instrumentHtml('', 'e', links)).toMatch(/^<img src=/);
  });

  it('apply per mode: every email, none, or marketing only', () => {
    expect(isTracked('ENABLED', false)).toBe(true);
    expect(isTracked('DISABLED', true)).toBe(false);
    expect(isTracked('MARKETING_ONLY', true)).toBe(true);
    expect(isTracked('MARKETING_ONLY', false)).toBe(false);
  });
});
