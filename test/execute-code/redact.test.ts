import { describe, expect, it } from 'vitest';
import { randomBytes, randomUUID, createHash } from 'node:crypto';
import { REDACTED, SECRET_PATTERNS, redactSecrets } from '../../src/shared/redact.js';

/** The redacted text and the names of the patterns that masked something. */
function redact(text: string): { text: string; names: string[] } {
  const names: string[] = [];
  return { text: redactSecrets(text, (name) => names.push(name)), names };
}

// Built at run time so no credential-shaped literal sits in the repository.
const alnum = (n: number, seed = 'aB3dE5gH7jK9mN1pQ2sT4vW6yZ8') => seed.repeat(Math.ceil(n / seed.length)).slice(0, n);

describe('redactSecrets masks credential-shaped strings', () => {
  const cases: { name: string; secret: string; shown: string }[] = [
    { name: 'sk_key', secret: `sk-proj-${alnum(40)}`, shown: `sk-${REDACTED}` },
    { name: 'sk_key', secret: `sk-${alnum(48)}`, shown: `sk-${REDACTED}` },
    { name: 'anthropic_key', secret: `sk-ant-api03-${alnum(80)}`, shown: `sk-ant-${REDACTED}` },
    { name: 'github_token', secret: `ghp_${alnum(36)}`, shown: `ghp_${REDACTED}` },
    { name: 'github_token', secret: `gho_${alnum(36)}`, shown: `gho_${REDACTED}` },
    { name: 'github_pat', secret: `github_pat_11${alnum(20)}_${alnum(59)}`, shown: `github_pat_${REDACTED}` },
    { name: 'slack_token', secret: `xoxb-1234567890-1234567890123-${alnum(24)}`, shown: `xoxb-${REDACTED}` },
    { name: 'slack_token', secret: `xapp-1-A0123456789-1234567890123-${alnum(64)}`, shown: `xapp-${REDACTED}` },
    { name: 'aws_access_key_id', secret: `AKIA${'IOSFODNN7EXAMPLE'}`, shown: `AKIA${REDACTED}` },
    { name: 'google_api_key', secret: `AIza${alnum(35)}`, shown: `AIza${REDACTED}` },
    { name: 'stripe_key', secret: `sk_live_${alnum(24)}`, shown: `sk_live_${REDACTED}` },
    { name: 'npm_token', secret: `npm_${alnum(36)}`, shown: `npm_${REDACTED}` },
    { name: 'huggingface_token', secret: `hf_${alnum(34)}`, shown: `hf_${REDACTED}` },
    { name: 'gitlab_token', secret: `glpat-${alnum(20)}`, shown: `glpat-${REDACTED}` },
    { name: 'telegram_bot_token', secret: `123456789:AA${alnum(33)}`, shown: `123456789:${REDACTED}` },
    { name: 'jwt', secret: `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${alnum(43)}`, shown: `eyJ${REDACTED}` },
  ];
  for (const { name, secret, shown } of cases) {
    it(`masks a ${name} (${secret.slice(0, 8)}…) inside a sentence`, () => {
      const out = redact(`the key is ${secret}, keep it safe`);
      expect(out.text).toBe(`the key is ${shown}, keep it safe`);
      expect(out.names).toEqual([name]);
    });
  }

  it('masks the token of an Authorization header, keeping the header readable', () => {
    const token = `${alnum(30)}.${alnum(12)}`;
    expect(redact(`curl -H "Authorization: Bearer ${token}" https://api.example.test/v1`).text).toBe(
      `curl -H "Authorization: Bearer ${REDACTED}" https://api.example.test/v1`,
    );
    expect(redact(`authorization: basic ${Buffer.from('user:pw').toString('base64')}`).text).toBe(`authorization: basic ${REDACTED}`);
    expect(redact(`{"Authorization": "Bearer ${token}"}`).text).toBe(`{"Authorization": "Bearer ${REDACTED}"}`);
    expect(redact(`sent Bearer ${alnum(32)} upstream`).text).toBe(`sent Bearer ${REDACTED} upstream`);
  });

  it('masks the body of a PEM private key block, keeping its armour lines', () => {
    const body = [alnum(64), alnum(64), `${alnum(20)}==`].join('\n');
    const text = `key:\n-----BEGIN RSA PRIVATE KEY-----\n${body}\n-----END RSA PRIVATE KEY-----\nnext line`;
    const out = redact(text);
    expect(out.text).toBe(`key:\n-----BEGIN RSA PRIVATE KEY-----\n${REDACTED}\n-----END RSA PRIVATE KEY-----\nnext line`);
    expect(out.names).toEqual(['private_key']);
    const openssh = redact(`-----BEGIN OPENSSH PRIVATE KEY-----\n${body}\n-----END OPENSSH PRIVATE KEY-----`).text;
    expect(openssh).not.toContain(alnum(64));
  });

  it('masks a PEM block cut short by truncation (no END line)', () => {
    const text = `-----BEGIN PRIVATE KEY-----\n${alnum(64)}\n${alnum(64)}\n... [OUTPUT TRUNCATED - 10 bytes omitted out of 99 total] ...\n`;
    const out = redact(text).text;
    expect(out).not.toContain(alnum(64));
    expect(out).toContain('[OUTPUT TRUNCATED');
  });

  it('masks the password of a URL and keeps user, host and path', () => {
    expect(redact('clone https://alice:hunter2@git.example.test/repo.git now').text).toBe(
      `clone https://alice:${REDACTED}@git.example.test/repo.git now`,
    );
    expect(redact('DATABASE_URL=postgres://app:s3cr3t-pw@db:5432/main').text).toBe(`DATABASE_URL=postgres://app:${REDACTED}@db:5432/main`);
  });

  it('masks secret-named assignments and JSON fields whose values look like secrets', () => {
    expect(redact('OPENAI_API_KEY=abc123def456ghi789').text).toBe(`OPENAI_API_KEY=${REDACTED}`);
    expect(redact('export DB_PASSWORD="correct4horse"').text).toBe(`export DB_PASSWORD="${REDACTED}"`);
    expect(redact('{"access_token": "ya29.a0AfH6SMBx3", "expires_in": 3599}').text).toBe(
      `{"access_token": "${REDACTED}", "expires_in": 3599}`,
    );
  });

  it('leaves ordinary text alone: hashes, uuids, base64, numbers, prose, variables', () => {
    const ordinary = [
      createHash('sha256').update('x').digest('hex'),
      createHash('sha1').update('x').digest('hex').toUpperCase(),
      randomUUID(),
      randomBytes(600).toString('base64'),
      randomBytes(300).toString('base64url'),
      'commit 3f2a9c1d0b7e4f5a6b8c9d0e1f2a3b4c5d6e7f80 (HEAD -> main)',
      'MAX_TOKENS=4096 PRIMARY_KEY=id TOKEN=$TOKEN API_KEY=${API_KEY} SORT_KEY=created_at',
      '{"token_count": 1234, "tokens": "many", "password": "", "token": "short"}',
      'a task-management-framework-for-everyone and sk-learn-compatible-estimators',
      'ssh git@github.com:org/repo.git; http://localhost:8080/path@v2; mailto:user@example.test',
      'Bearer tokens are described in RFC 6750; the Authorization header carries them.',
      'ask-questions-about-the-project-2024 desk-1234567890123456789012',
      '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----',
      '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----',
      'the AKIA prefix marks AWS keys; AKIAB is too short; xoxb- alone is not a token',
      'version 1.2.3-beta+build.45, port 5432, pid 12345:67890',
    ].join('\n');
    const out = redact(ordinary);
    expect(out.names).toEqual([]);
    expect(out.text).toBe(ordinary);
  });

  it('is idempotent: a masked text is not masked again', () => {
    const once = redactSecrets(`ghp_${alnum(36)} sk-${alnum(40)} https://u:p4ss@h`);
    expect(redactSecrets(once)).toBe(once);
  });

  it('names every pattern and compiles them into one expression', () => {
    const names = SECRET_PATTERNS.map((pattern) => pattern.name);
    expect(new Set(names).size).toBe(names.length);
    for (const pattern of SECRET_PATTERNS) expect(() => new RegExp(pattern.source)).not.toThrow();
  });

  it('scans a 5 MB output of long runs without blowing up (no catastrophic backtracking)', () => {
    const text = ['A'.repeat(1_000_000), 'a1'.repeat(500_000), '-'.repeat(1_000_000), `sk-${'x'.repeat(999_000)}`, 'https://' + 'u'.repeat(1_000_000)].join(' ');
    const out = redactSecrets(text);
    expect(out.length).toBeGreaterThan(3_000_000);
  });
});
