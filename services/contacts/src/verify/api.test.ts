import { DnsResolver } from '@stamp/platform';
import { startDnsServer, type TestDnsServer } from '@stamp/testkit/dns-server.ts';
import { serveRouter, type ServedRouter } from '@stamp/testkit/http.ts';

import { createVerifyRouter } from './api.ts';

describe('POST /v1/verify', () => {
  let dns: TestDnsServer;
  let api: ServedRouter;

  beforeAll(async () => {
    dns = await startDnsServer({
      'acme.io': {
        NS: ['ns1.example.net'],
        MX: [{ exchange: 'mx.example.net', priority: 10 }],
        A: ['192.0.2.10'],
      },
    });
    const resolver = new DnsResolver({ servers: [dns.address], timeoutMs: 1000, tries: 1 });
    api = await serveRouter(createVerifyRouter({ resolver }), {
      projectId: 'project-1',
      keyKind: 'secret',
    });
  });

  afterAll(async () => {
    await api.close();
    await dns.close();
  });

  it('answers the verification result in the success envelope', async () => {
    const response = await api.request('POST', '/v1/verify', { email: 'jane@acme.io' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      data: {
        email: 'jane@acme.io',
        valid: true,
        isDisposable: false,
        isAlias: false,
        isTypo: false,
        isPlusAddressed: false,
        isPersonalEmail: false,
        domainExists: true,
        hasWebsite: true,
        hasMxRecords: true,
        reasons: ['Email appears to be valid'],
      },
    });
  });

  it('answers valid=false for a domain that does not exist', async () => {
    const response = await api.request('POST', '/v1/verify', { email: 'jane@nowhere.io' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      success: true,
      data: { valid: false, domainExists: false, reasons: ['Domain does not exist'] },
    });
  });

  it('answers 422 VALIDATION_ERROR when email is missing', async () => {
    const response = await api.request('POST', '/v1/verify', {});
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({
      success: false,
      error: {
        code: 'VALIDATION_ERROR',
        statusCode: 422,
        errors: [{ field: 'email', code: 'invalid_type' }],
      },
      code: 422,
    });
  });

  it('answers 422 VALIDATION_ERROR for a malformed email', async () => {
    const response = await api.request('POST', '/v1/verify', { email: 'nope' });
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({
      success: false,
      error: { code: 'VALIDATION_ERROR', errors: [{ field: 'email' }] },
    });
  });

  it('answers 422 when there is no body at all', async () => {
    const response = await api.request('POST', '/v1/verify');
    expect(response.status).toBe(422);
  });
});
