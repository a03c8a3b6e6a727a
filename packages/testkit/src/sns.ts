/**
 * A stand-in for Amazon SNS in tests: an HTTPS server on loopback (its own self-signed
 * certificate, written to a file for `NODE_EXTRA_CA_CERTS`) that serves a signing certificate and
 * records subscription confirmations, and a signer that makes SNS HTTP messages with that
 * certificate's key, as SNS does (SignatureVersion 1: SHA1withRSA, 2: SHA256withRSA, over the
 * `name\nvalue\n` string of the type's fields; AWS documentation).
 */
import { sign } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import { generate } from 'selfsigned';

import { temporaryDirectory } from './temporary.ts';

/** A running stand-in (see the module comment). */
export interface SnsHost {
  /** `https://127.0.0.1:<port>`. */
  url: string;
  /** The file holding the server's certificate, for `NODE_EXTRA_CA_CERTS`. */
  caFile: string;
  /** Where the signing certificate is served. */
  certUrl: string;
  /** Tokens of the subscriptions confirmed so far. */
  confirmations: string[];
  /** A signed SNS message of `fields` (Type, Message, and SubscribeURL/Token for confirmations). */
  message(fields: Record<string, string>, version?: '1' | '2'): Record<string, string>;
  close(): Promise<void>;
}

/** Starts the stand-in. */
export async function startSnsHost(): Promise<SnsHost> {
  const tls = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  const signing = await generate([{ name: 'commonName', value: 'sns.test' }], {
    keySize: 2048,
    algorithm: 'sha256',
  });
  const caFile = join(temporaryDirectory('stamp-sns-'), 'ca.pem');
  writeFileSync(caFile, tls.cert);
  const confirmations: string[] = [];
  const server = createServer({ key: tls.private, cert: tls.cert }, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    if (url.pathname === '/SimpleNotificationService-test.pem') {
      res.writeHead(200, { 'content-type': 'application/x-pem-file' }).end(signing.cert);
    } else if (url.pathname === '/confirm') {
      confirmations.push(url.searchParams.get('Token') ?? '');
      res.writeHead(200, { 'content-type': 'text/xml' }).end('<ConfirmSubscriptionResponse/>');
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => {
    server.listen(0, '127.0.0.1', resolve);
  });
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const certUrl = `${url}/SimpleNotificationService-test.pem`;

  return {
    url,
    caFile,
    certUrl,
    confirmations,
    message(fields, version = '1') {
      const full: Record<string, string> = {
        MessageId: crypto.randomUUID(),
        TopicArn: 'arn:aws:sns:us-east-1:123456789012:stamp-feedback',
        Timestamp: new Date().toISOString(),
        SignatureVersion: version,
        SigningCertURL: certUrl,
        ...fields,
      };
      const order =
        full.Type === 'Notification'
          ? ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type']
          : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
      const text = order
        .filter((name) => full[name] !== undefined)
        .map((name) => `${name}\n${full[name] ?? ''}\n`)
        .join('');
      const algorithm = version === '1' ? 'sha1' : 'sha256';
      full.Signature = sign(algorithm, Buffer.from(text), signing.private).toString('base64');
      return full;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
