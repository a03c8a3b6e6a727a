import { generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const generateKeyPairAsync = promisify(generateKeyPair);

/** Purpose of the sealed DKIM private keys (`secrets.seal('dkim', pem)`). */
export const DKIM_PURPOSE = 'dkim';

/** A DKIM key pair: `publicKey` base64 SPKI DER (the DKIM `p=` tag), `privateKey` PKCS#8 PEM. */
export interface DkimKeys {
  publicKey: string;
  privateKey: string;
}

/** Generates an RSA-2048 DKIM key pair off the main thread (RFC 6376 §3.3). */
export async function generateDkimKeys(): Promise<DkimKeys> {
  const { publicKey, privateKey } = await generateKeyPairAsync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKey: publicKey.toString('base64'), privateKey };
}

/** A DKIM selector: `stamp-` and 6 random hex digits, so a re-added domain gets a new record. */
export const newSelector = (): string => `stamp-${randomBytes(3).toString('hex')}`;
