/**
 * Login through an OpenID Connect provider over real sockets (spec part 4 `GET
 * /auth/oauth-config`; OpenID Connect Core 1.0 authorization code flow with PKCE, state and
 * nonce): a real provider (`oidc-provider`) on loopback, whose login interaction the test
 * completes over HTTP like a browser, following every redirect by hand and carrying each
 * origin's cookies.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

import { ConfigError } from '@stamp/platform';
import { freePort } from '@stamp/testkit/net.ts';
import Provider, { type Configuration } from 'oidc-provider';

import type { Stamp } from './app.ts';
import { readConfig } from './config.ts';
import { call, startTestStamp } from './testing.ts';

const CLIENT = { id: 'stamp-test', secret: 'a client secret of the test provider' };

/** The provider's accounts: id → claims. */
const ACCOUNTS: Record<string, { email: string; email_verified: boolean; name?: string }> = {
  ada: { email: 'Ada@Example.org', email_verified: true, name: 'Ada Lovelace' },
  linked: { email: 'linked@example.org', email_verified: true },
  unverified: { email: 'unverified@example.org', email_verified: false },
  newcomer: { email: 'newcomer@example.org', email_verified: true },
  first: { email: 'first@example.org', email_verified: true },
};

/** A real OpenID Connect provider on loopback, with a login interaction driven over HTTP. */
interface TestProvider {
  issuer: string;
  close(): Promise<void>;
}

/**
 * Starts `oidc-provider` at `issuer` (http://127.0.0.1:<port>) with one confidential client
 * allowed to redirect to `redirectUris`. Its interaction endpoints answer the test:
 * `GET /interaction/:uid` → `{prompt}`; `POST /interaction/:uid/login?account=<id>` logs that
 * account in; `POST /interaction/:uid/abort` refuses (the provider then answers the client
 * `access_denied`). Consent is implied for the client.
 */
async function startProvider(port: number, redirectUris: string[]): Promise<TestProvider> {
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const configuration: Configuration = {
    clients: [
      {
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        redirect_uris: redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test', use: 'sig' }] },
    cookies: { keys: ['a cookie key of the test provider'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: false } },
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      Grant: 600,
      IdToken: 600,
      Interaction: 600,
      Session: 600,
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, sub) => {
      const claims = ACCOUNTS[sub];
      return claims === undefined
        ? undefined
        : { accountId: sub, claims: () => ({ sub, ...claims }) };
    },
    // A first-party client: its scopes are granted without a consent prompt.
    loadExistingGrant: async (ctx) => {
      const accountId = ctx.oidc.session?.accountId;
      const clientId = ctx.oidc.client?.clientId;
      if (accountId === undefined || clientId === undefined) return undefined;
      const grant = new ctx.oidc.provider.Grant({ clientId, accountId });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  };
  // Its warning about the in-memory store, right for a test, is left out of the test's output.
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  let provider: Provider;
  try {
    provider = new Provider(issuer, configuration);
  } finally {
    warn.mockRestore();
  }
  const handle = provider.callback();

  async function interaction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const [, , , action] = (req.url ?? '').split('?')[0]!.split('/');
    if (req.method === 'GET' && action === undefined) {
      const details = await provider.interactionDetails(req, res);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ prompt: details.prompt.name }));
      return;
    }
    if (req.method === 'POST' && action === 'login') {
      const accountId = new URL(req.url ?? '', issuer).searchParams.get('account') ?? '';
      await provider.interactionFinished(req, res, { login: { accountId } });
      return;
    }
    if (req.method === 'POST' && action === 'abort') {
      await provider.interactionFinished(req, res, {
        error: 'access_denied',
        error_description: 'The user refused',
      });
      return;
    }
    res.statusCode = 404;
    res.end();
  }

  const server: Server = createServer((req, res) => {
    if ((req.url ?? '').startsWith('/interaction/')) {
      interaction(req, res).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    } else {
      void handle(req, res);
    }
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    issuer,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** A browser for the test: cookies kept per origin, redirects followed by hand. */
class Browser {
  private readonly jars = new Map<string, Map<string, string>>();

  /** One request to `url` with the cookies of its origin; keeps the cookies it sets. */
  async request(url: string, method = 'GET'): Promise<Response> {
    const origin = new URL(url).origin;
    const jar = this.jars.get(origin) ?? new Map<string, string>();
    this.jars.set(origin, jar);
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, {
      method,
      redirect: 'manual',
      headers: cookie === '' ? {} : { cookie },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      const expired = attributes.some(
        (attribute) =>
          /^max-age=(0|-)/i.test(attribute) ||
          (/^expires=/i.test(attribute) && Date.parse(attribute.slice(8)) < Date.now()),
      );
      if (expired || value === '') jar.delete(name);
      else jar.set(name, value);
    }
    return response;
  }

  /** The cookie `name` of `origin`, or undefined. */
  cookie(origin: string, name: string): string | undefined {
    return this.jars.get(origin)?.get(name);
  }
}

/** The absolute target of a redirect answer. */
function locationOf(response: Response, from: string): string {
  const location = response.headers.get('location');
  if (location === null) throw new Error(`${from} answered ${response.status} without Location`);
  return new URL(location, from).href;
}

/**
 * Starts a login at `start` and goes through the provider as `account` (or refuses with
 * `abort`) until the provider redirects back: the callback URL, not yet requested.
 */
async function throughProvider(
  browser: Browser,
  start: string,
  account: string,
  options: { abort?: boolean } = {},
): Promise<string> {
  const started = await browser.request(start);
  expect(started.status).toBe(302);
  let url = locationOf(started, start);
  for (let hop = 0; hop < 10; hop++) {
    if (url.includes('/auth/oauth/')) return url;
    if (new URL(url).pathname.startsWith('/interaction/')) {
      const details = await browser.request(url);
      expect(details.status).toBe(200);
      expect(((await details.json()) as { prompt: string }).prompt).toBe('login');
      const finished = await browser.request(
        options.abort === true ? `${url}/abort` : `${url}/login?account=${account}`,
        'POST',
      );
      expect([302, 303]).toContain(finished.status);
      url = locationOf(finished, url);
      continue;
    }
    const response = await browser.request(url);
    expect([302, 303]).toContain(response.status);
    url = locationOf(response, url);
  }
  throw new Error('the provider never redirected back');
}

/** The JSON error envelope of a response. */
async function errorOf(response: Response): Promise<{ code: string; statusCode: number }> {
  const body = (await response.json()) as {
    success: boolean;
    error: { code: string; statusCode: number };
  };
  expect(body.success).toBe(false);
  return body.error;
}

describe('OpenID Connect login', () => {
  let provider: TestProvider;
  /** Sign-up open (the default). */
  let stamp: Stamp;
  let publicUrl: string;
  /** STAMP_SIGNUP=false. */
  let closed: Stamp;
  let closedUrl: string;

  beforeAll(async () => {
    const [providerPort, stampPort, closedPort, downPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    publicUrl = `http://127.0.0.1:${stampPort}`;
    closedUrl = `http://127.0.0.1:${closedPort}`;
    provider = await startProvider(providerPort, [
      `${publicUrl}/auth/oauth/test/callback`,
      `${closedUrl}/auth/oauth/test/callback`,
    ]);
    const test = {
      id: 'test',
      name: 'Test IdP',
      issuer: provider.issuer,
      clientId: CLIENT.id,
      clientSecret: CLIENT.secret,
    };
    const providers = JSON.stringify([test]);
    // A provider that nothing answers for.
    const down = { ...test, id: 'down', name: 'Down', issuer: `http://127.0.0.1:${downPort}` };
    stamp = await startTestStamp({
      STAMP_PORT: String(stampPort),
      STAMP_PUBLIC_URL: publicUrl,
      STAMP_OIDC_PROVIDERS: JSON.stringify([test, down]),
    });
    closed = await startTestStamp({
      STAMP_PORT: String(closedPort),
      STAMP_PUBLIC_URL: closedUrl,
      STAMP_OIDC_PROVIDERS: providers,
      STAMP_SIGNUP: 'false',
    });
  });

  afterAll(async () => {
    await stamp.close();
    await closed.close();
    await provider.close();
  });

  /** A complete login as `account` on `base`: the callback's answer. */
  async function login(browser: Browser, base: string, account: string, query = '') {
    const callback = await throughProvider(browser, `${base}/auth/oauth/test${query}`, account);
    return browser.request(callback);
  }

  /** GET /users/@me with the session cookie `browser` holds for `base`. */
  async function me(browser: Browser, base: string) {
    const session = browser.cookie(base, 'stamp_session');
    expect(session).toBeDefined();
    return call(base, undefined, 'GET', '/users/@me', undefined, {
      cookie: `stamp_session=${session ?? ''}`,
    });
  }

  it('lists the configured provider in Plunk-compatible form', async () => {
    const response = await call(stamp.url, undefined, 'GET', '/auth/oauth-config');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      data: {
        github: false,
        google: false,
        providers: [
          { id: 'test', name: 'Test IdP', loginUrl: `${publicUrl}/auth/oauth/test` },
          { id: 'down', name: 'Down', loginUrl: `${publicUrl}/auth/oauth/down` },
        ],
      },
    });
  });

  it('signs a new user up through the provider, with a working session cookie', async () => {
    const browser = new Browser();
    const answer = await login(browser, publicUrl, 'ada');
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe(publicUrl);
    const setCookie = answer.headers.getSetCookie().join('\n');
    expect(setCookie).toMatch(
      /stamp_session=[^;]+; Max-Age=604800; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Lax/,
    );
    // The sign-in state serves one callback.
    expect(setCookie).toMatch(/stamp_oauth=; Path=\/auth\/oauth; Expires=Thu, 01 Jan 1970/);

    const user = await me(browser, publicUrl);
    expect(user.status).toBe(200);
    expect(user.body).toMatchObject({
      email: 'ada@example.org',
      name: 'Ada Lovelace',
      emailVerified: true,
    });
    const userId = (user.body as { id: string }).id;

    // The first user of the installation owns the default project.
    const session = `stamp_session=${browser.cookie(publicUrl, 'stamp_session') ?? ''}`;
    const projects = await call(publicUrl, undefined, 'GET', '/users/@me/projects', undefined, {
      cookie: session,
    });
    expect(projects.body).toEqual([
      expect.objectContaining({ id: stamp.bootstrap.projectId, role: 'OWNER' }),
    ]);

    // The link is an event of the user's stream.
    const log = await stamp.platform.store.readStream(`user-${userId}`);
    expect(log.map((event) => event.type)).toEqual([
      'UserRegistered',
      'UserEmailVerified',
      'UserIdentityLinked',
    ]);
    expect(log[2]?.data).toEqual({
      provider: 'test',
      issuer: provider.issuer,
      subject: 'ada',
      email: 'ada@example.org',
    });

    // No password: password login answers as for a wrong password.
    const password = await call(publicUrl, undefined, 'POST', '/auth/login', {
      email: 'ada@example.org',
      password: 'correct horse battery',
    });
    expect(password.status).toBe(401);
    expect(password.body).toMatchObject({ error: { code: 'INVALID_CREDENTIALS' } });

    // A second login, in another browser, is the same user, and appends nothing.
    const again = new Browser();
    const second = await login(again, publicUrl, 'ada');
    expect(second.status).toBe(302);
    expect((await me(again, publicUrl)).body).toMatchObject({ id: userId });
    expect(await stamp.platform.store.readStream(`user-${userId}`)).toHaveLength(3);
  });

  it('links the provider to the password account with the same verified email', async () => {
    const signup = await call(publicUrl, undefined, 'POST', '/auth/signup', {
      email: 'linked@example.org',
      password: 'correct horse battery',
    });
    expect(signup.status).toBe(201);
    const account = signup.body as { id: string; emailVerified: boolean };
    expect(account.emailVerified).toBe(false);

    const browser = new Browser();
    expect((await login(browser, publicUrl, 'linked')).status).toBe(302);
    const user = await me(browser, publicUrl);
    expect(user.body).toMatchObject({ id: account.id, emailVerified: true });
    const types = (await stamp.platform.store.readStream(`user-${account.id}`)).map(
      (event) => event.type,
    );
    expect(types).toEqual(['UserRegistered', 'UserIdentityLinked', 'UserEmailVerified']);

    // The password still works.
    const password = await call(publicUrl, undefined, 'POST', '/auth/login', {
      email: 'linked@example.org',
      password: 'correct horse battery',
    });
    expect(password.status).toBe(200);
  });

  it('returns to a path of the site given at the start, and refuses other redirects', async () => {
    const browser = new Browser();
    const answer = await login(browser, publicUrl, 'ada', '?redirect=%2Fprojects%3Ftab%3Dkeys');
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe(`${publicUrl}/projects?tab=keys`);

    for (const redirect of ['//evil.example/', 'https://evil.example/', '/\\evil.example', 'x']) {
      const refused = await browser.request(
        `${publicUrl}/auth/oauth/test?redirect=${encodeURIComponent(redirect)}`,
      );
      expect(refused.status).toBe(422);
      expect(await errorOf(refused)).toMatchObject({ code: 'VALIDATION_ERROR' });
    }
  });

  it('refuses a callback whose state does not match, or without the sign-in state', async () => {
    const browser = new Browser();
    const callback = new URL(await throughProvider(browser, `${publicUrl}/auth/oauth/test`, 'ada'));
    const forged = new URL(callback);
    forged.searchParams.set('state', 'forged');
    const refused = await browser.request(forged.href);
    expect(refused.status).toBe(400);
    expect(await errorOf(refused)).toMatchObject({ code: 'BAD_REQUEST' });
    expect(refused.headers.getSetCookie().join('\n')).not.toContain('stamp_session=');

    // The refusal cleared the sign-in state: the genuine callback is refused too.
    const replayed = await browser.request(callback.href);
    expect(replayed.status).toBe(400);

    // Another browser, without the state cookie, gets nothing from a stolen callback URL.
    const stolen = await new Browser().request(callback.href);
    expect(stolen.status).toBe(400);
    expect(await errorOf(stolen)).toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('refuses the sign-in when the provider answers with an error', async () => {
    const browser = new Browser();
    const callback = await throughProvider(browser, `${publicUrl}/auth/oauth/test`, 'ada', {
      abort: true,
    });
    expect(new URL(callback).searchParams.get('error')).toBe('access_denied');
    const refused = await browser.request(callback);
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { error: { code: string; details: unknown } };
    expect(body.error).toMatchObject({
      code: 'BAD_REQUEST',
      details: { error: 'access_denied' },
    });
  });

  it('refuses an email the provider has not verified, and creates no user', async () => {
    const browser = new Browser();
    const refused = await login(browser, publicUrl, 'unverified');
    expect(refused.status).toBe(403);
    expect(await errorOf(refused)).toMatchObject({ code: 'EMAIL_VERIFICATION_REQUIRED' });
    expect(browser.cookie(publicUrl, 'stamp_session')).toBeUndefined();
    const log = JSON.stringify(await stamp.platform.store.readAll({ after: 0, limit: 100_000 }));
    expect(log).not.toContain('unverified@example.org');
  });

  it('answers 404 for an unknown provider', async () => {
    for (const path of ['/auth/oauth/nobody', '/auth/oauth/nobody/callback?state=x&code=y']) {
      const response = await call(publicUrl, undefined, 'GET', path);
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ success: false, error: { statusCode: 404 } });
    }
  });

  it('answers 502 while the provider cannot be reached', async () => {
    const response = await call(publicUrl, undefined, 'GET', '/auth/oauth/down');
    expect(response.status).toBe(502);
    expect(response.body).toMatchObject({ success: false, error: { code: 'BAD_GATEWAY' } });
  });

  it('with sign-up closed, signs up the first user only', async () => {
    const first = new Browser();
    expect((await login(first, closedUrl, 'first')).status).toBe(302);
    expect((await me(first, closedUrl)).body).toMatchObject({ email: 'first@example.org' });

    const newcomer = new Browser();
    const refused = await login(newcomer, closedUrl, 'newcomer');
    expect(refused.status).toBe(403);
    expect(await errorOf(refused)).toMatchObject({ code: 'FORBIDDEN' });
    expect(newcomer.cookie(closedUrl, 'stamp_session')).toBeUndefined();

    // An existing account still logs in.
    expect((await login(new Browser(), closedUrl, 'first')).status).toBe(302);
  });
});

describe('OpenID Connect configuration', () => {
  it('refuses bad provider variables, naming them', () => {
    const refused = (env: Record<string, string>): string => {
      try {
        readConfig(env);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as ConfigError).message;
      }
      throw new Error(`accepted ${JSON.stringify(env)}`);
    };
    expect(refused({ STAMP_OIDC_PROVIDERS: '[' })).toContain('STAMP_OIDC_PROVIDERS');
    const entry = {
      id: 'corp',
      name: 'Corp',
      issuer: 'https://id.example.com',
      clientId: 'c',
      clientSecret: 's',
    };
    expect(
      refused({
        STAMP_OIDC_PROVIDERS: JSON.stringify([{ ...entry, issuer: 'http://id.example.com' }]),
      }),
    ).toContain('STAMP_OIDC_PROVIDERS.0.issuer');
    expect(
      refused({ STAMP_OIDC_PROVIDERS: JSON.stringify([{ ...entry, scopes: ['email'] }]) }),
    ).toContain('STAMP_OIDC_PROVIDERS.0.scopes');
    expect(refused({ STAMP_OIDC_PROVIDERS: JSON.stringify([entry, entry]) })).toContain(
      'STAMP_OIDC_PROVIDERS',
    );
    expect(refused({ STAMP_GOOGLE_CLIENT_ID: 'id' })).toContain('STAMP_GOOGLE_CLIENT_SECRET');

    const config = readConfig({
      STAMP_OIDC_PROVIDERS: JSON.stringify([entry]),
      STAMP_GOOGLE_CLIENT_ID: 'id',
      STAMP_GOOGLE_CLIENT_SECRET: 'secret',
    });
    expect(config.STAMP_OIDC_PROVIDERS).toEqual([
      { ...entry, scopes: ['openid', 'email', 'profile'] },
    ]);
  });
});
