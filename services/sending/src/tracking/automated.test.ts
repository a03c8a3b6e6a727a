import { clickAutomation, LINK_BURST_MS, openAutomation, SCANNER_WINDOW_MS } from './automated.ts';

const browser =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) ' +
  'Version/17.0 Safari/605.1.15';
const person = { method: 'GET', userAgent: browser };
const sentAt = Date.parse('2026-11-24T10:00:00Z');

describe('automated opens and clicks', () => {
  it('tell a person from a privacy proxy, a bot, a HEAD request and no user agent', () => {
    expect(openAutomation(person)).toBeNull();
    expect(openAutomation({ method: 'GET', userAgent: 'Mozilla/5.0' })).toBe('privacy-proxy');
    expect(openAutomation({ method: 'GET', userAgent: 'Googlebot/2.1' })).toBe('bot-user-agent');
    expect(openAutomation({ method: 'GET', userAgent: 'curl/8.5.0' })).toBe('bot-user-agent');
    expect(openAutomation({ method: 'GET' })).toBe('bot-user-agent');
    expect(openAutomation({ method: 'HEAD', userAgent: browser })).toBe('head-request');
  });

  it('take a click within seconds of delivery for a scanner', () => {
    const soon = { url: 'https://a.example/', at: sentAt + SCANNER_WINDOW_MS - 1, sentAt };
    expect(clickAutomation(person, soon, [])).toBe('soon-after-delivery');
    const later = { ...soon, at: sentAt + SCANNER_WINDOW_MS };
    expect(clickAutomation(person, later, [])).toBeNull();
    // The delivery is not even recorded yet: the click came with it.
    expect(clickAutomation(person, { ...later, sentAt: null }, [])).toBe('soon-after-delivery');
  });

  it('take another link clicked moments after one for a scanner following every link', () => {
    const at = sentAt + 60_000;
    const click = { url: 'https://b.example/', at, sentAt };
    expect(
      clickAutomation(person, click, [{ url: 'https://a.example/', at: at - LINK_BURST_MS + 1 }]),
    ).toBe('link-burst');
    // The same link twice is a person clicking again; another link later is a person too.
    expect(clickAutomation(person, click, [{ url: 'https://b.example/', at: at - 10 }])).toBeNull();
    expect(
      clickAutomation(person, click, [{ url: 'https://a.example/', at: at - LINK_BURST_MS }]),
    ).toBeNull();
    expect(clickAutomation({ method: 'GET', userAgent: 'Mozilla/5.0' }, click, [])).toBe(
      'privacy-proxy',
    );
  });
});
