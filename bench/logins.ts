import { fetchJson } from '@stamp/testkit/net.ts';
import autocannon from 'autocannon';

import { ARGON2_OPTIONS } from '../services/accounts/src/users/passwords.ts';
import { figure, startProcess, startStamp } from './harness.ts';

/**
 * Logins per second: one user signed up on the embedded platform, then POST /auth/login with
 * the right password on 20 connections for 10 s (each login checks an argon2id hash and issues a
 * session token); the same load on a bare Express route that only checks the same password
 * against a hash of the same cost is the same run's baseline. Prints logins/s, p99 and the ratio.
 */
const body = JSON.stringify({ email: 'bench@example.org', password: 'correct horse battery' });

async function load(url: string, title: string) {
  return autocannon({
    title,
    url: `${url}/auth/login`,
    connections: 20,
    duration: 10,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
}

const stamp = await startStamp();
const signup = await fetchJson(`${stamp.url}/auth/signup`, { method: 'POST', body });
if (signup.status !== 201) throw new Error(`signup: ${signup.status}`);
const logins = await load(stamp.url, 'logins');
await stamp.stop();
const bare = await startProcess('bench/bare-server.ts', {});
const baseline = await load(bare.url, 'bare');
await bare.stop();

figure('argon2id.memory_cost', ARGON2_OPTIONS.memoryCost, 'KiB');
figure('argon2id.time_cost', ARGON2_OPTIONS.timeCost, 'passes');
figure('logins.per_s', logins.requests.average, 'logins/s');
figure('logins.latency_p99', logins.latency.p99, 'ms');
figure('logins.non2xx', logins.non2xx, 'responses');
figure('bare_argon2_check.per_s', baseline.requests.average, 'req/s');
figure('bare_argon2_check.latency_p99', baseline.latency.p99, 'ms');
figure('logins.ratio_to_bare_check', logins.requests.average / baseline.requests.average, 'x');
