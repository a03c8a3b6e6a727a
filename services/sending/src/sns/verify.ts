/**
 * Verification of Amazon SNS messages posted over HTTP(S) (AWS documentation, "Verifying the
 * signatures of Amazon SNS messages"): the signing certificate is fetched only from a URL that
 * matches the trusted pattern (`STAMP_SNS_CERT_URL_PATTERN`), over HTTPS, and cached; the
 * signature (SignatureVersion 1: SHA1withRSA, 2: SHA256withRSA) is checked over the canonical
 * string of the message's fields; a message older than an hour is refused. Node's crypto does
 * the RSA work; the maintained validators hard-code AWS's hosts, which the configurable pattern
 * (and the tests' loopback host) cannot use.
 */
import { verify as verifySignature, type KeyObject, X509Certificate } from 'node:crypto';

import { BoundedCache } from '@stamp/platform';
import { z } from 'zod';

/** The fields of an SNS HTTP message this service reads. */
export const snsMessage = z.object({
  Type: z.enum(['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation']),
  MessageId: z.string().min(1).max(200),
  TopicArn: z.string().min(1).max(1000),
  Subject: z.string().max(1000).optional(),
  Message: z.string().max(262_144),
  Timestamp: z.string().max(64),
  SignatureVersion: z.enum(['1', '2']),
  Signature: z.string().min(1).max(4096),
  SigningCertURL: z.string().min(1).max(2048),
  SubscribeURL: z.string().max(4096).optional(),
  Token: z.string().max(4096).optional(),
});

/** An SNS HTTP message. */
export type SnsMessage = z.infer<typeof snsMessage>;

/** A message whose signature, certificate or age is not acceptable. */
export class SnsRefused extends Error {}

/** The longest an SNS message may take to arrive, ms. */
const MAX_AGE_MS = 60 * 60 * 1000;
/** Largest accepted certificate, bytes. */
const MAX_CERT_BYTES = 16_384;

/** The string SNS signs: `name\nvalue\n` for each present field of the type, in order. */
export function stringToSign(message: SnsMessage): string {
  const fields =
    message.Type === 'Notification'
      ? (['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'] as const)
      : ([
          'Message',
          'MessageId',
          'SubscribeURL',
          'Timestamp',
          'Token',
          'TopicArn',
          'Type',
        ] as const);
  let text = '';
  for (const field of fields) {
    const value = message[field];
    if (value !== undefined) text += `${field}\n${value}\n`;
  }
  return text;
}

/** Checks SNS messages (see the module comment). */
export class SnsVerifier {
  private readonly keys = new BoundedCache<string, KeyObject>(64);
  private readonly pattern: RegExp;
  private readonly now: () => number;

  /**
   * @param certUrlPattern the only certificate (and subscription) URLs trusted.
   * @param now the clock, ms since the epoch (tests).
   */
  constructor(certUrlPattern: RegExp, now: () => number = Date.now) {
    this.pattern = certUrlPattern;
    this.now = now;
  }

  /** Whether `url` is an HTTPS URL the pattern trusts. */
  trusts(url: string): boolean {
    return url.startsWith('https://') && URL.canParse(url) && this.pattern.test(url);
  }

  /**
   * @throws SnsRefused when the certificate URL is not trusted or cannot be fetched, the
   *   signature does not verify, or the message is older than an hour (or from the future).
   */
  async verify(message: SnsMessage): Promise<void> {
    const sentAt = Date.parse(message.Timestamp);
    if (!Number.isFinite(sentAt) || Math.abs(this.now() - sentAt) > MAX_AGE_MS) {
      throw new SnsRefused('The message is too old or its Timestamp is invalid');
    }
    if (!this.trusts(message.SigningCertURL)) {
      throw new SnsRefused('The SigningCertURL is not a trusted SNS certificate URL');
    }
    const key = await this.keyOf(message.SigningCertURL);
    const algorithm = message.SignatureVersion === '1' ? 'sha1' : 'sha256';
    const valid = verifySignature(
      algorithm,
      Buffer.from(stringToSign(message), 'utf8'),
      key,
      Buffer.from(message.Signature, 'base64'),
    );
    if (!valid) throw new SnsRefused('The signature does not verify');
  }

  private async keyOf(url: string): Promise<KeyObject> {
    const cached = this.keys.get(url);
    if (cached !== undefined) return cached;
    let pem: string;
    try {
      const response = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(10_000) });
      pem = await response.text();
      if (!response.ok || pem.length > MAX_CERT_BYTES) throw new Error(`HTTP ${response.status}`);
    } catch (error) {
      throw new SnsRefused(
        `The signing certificate could not be fetched: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    let key: KeyObject;
    try {
      key = new X509Certificate(pem).publicKey;
    } catch {
      throw new SnsRefused('The signing certificate is not a PEM certificate');
    }
    this.keys.set(url, key);
    return key;
  }
}
