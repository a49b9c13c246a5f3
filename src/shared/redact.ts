/**
 * Masks credential-shaped strings in text a script or command printed, before the model or
 * a chat sees it (`code_execution.redact_secrets`). Every pattern is anchored on something a
 * credential has and ordinary text lacks (a vendor prefix, a header name, `scheme://user:…@`,
 * a PEM armour line), so hashes, uuids and base64 data in general pass untouched. All patterns
 * are compiled into one regular expression: the text is scanned once.
 *
 * No library fits: secret scanners (secretlint and the like) lint files rule by rule and
 * report findings; this needs one synchronous pass that replaces.
 */

/** One kind of credential. */
export interface SecretPattern {
  /** Stable name, used in logs and tests (`github_token`). */
  readonly name: string;
  /**
   * Regex source. An optional group `(?<keep>…)` at its start and `(?<tail>…)` at its end are
   * kept verbatim around the mask (a vendor prefix, a header name, a PEM armour line).
   */
  readonly source: string;
  /** The mask stands on its own line between `keep` and `tail` (a PEM block). */
  readonly block?: boolean;
}

/** What replaces the secret part of a match. */
export const REDACTED = '[REDACTED]';

/** Not preceded by a token character: a key inside a longer identifier is not a key. */
const START = '(?<![A-Za-z0-9_-])';
/** Not followed by a token character. */
const END = '(?![A-Za-z0-9_-])';

/** The patterns, most specific first (an `sk-ant-` key is not reported as an `sk-` one). */
export const SECRET_PATTERNS: readonly SecretPattern[] = [
  // PEM armour; a block cut short (a truncated output) still masks the base64 lines that follow.
  {
    name: 'private_key',
    block: true,
    source:
      '(?<keep>-----BEGIN (?:[A-Z0-9]+ ){0,4}PRIVATE KEY-----)' +
      '(?:[\\s\\S]{1,32768}?(?<tail>-----END (?:[A-Z0-9]+ ){0,4}PRIVATE KEY-----)' +
      '|(?:[ \\t]*\\r?\\n[ \\t]*(?:[A-Za-z0-9+/=]+|[A-Za-z-]+:[^\\n]*))+)',
  },
  { name: 'anthropic_key', source: `${START}(?<keep>sk-ant-)[A-Za-z0-9_-]{20,}` },
  // OpenAI and the many services that copied its `sk-` shape (OpenRouter, DeepSeek, …); a digit is required so `sk-learn-…` prose passes.
  { name: 'sk_key', source: `${START}(?<keep>sk-)(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{20,}` },
  { name: 'stripe_key', source: `${START}(?<keep>(?:sk|rk|pk)_(?:live|test)_)[A-Za-z0-9]{16,}` },
  { name: 'github_token', source: `${START}(?<keep>gh[pousr]_)[A-Za-z0-9]{30,}${END}` },
  { name: 'github_pat', source: `${START}(?<keep>github_pat_)[A-Za-z0-9_]{22,}` },
  { name: 'gitlab_token', source: `${START}(?<keep>glpat-)[A-Za-z0-9_-]{20,}` },
  { name: 'slack_token', source: `${START}(?<keep>xox[abposr]-|xapp-)[0-9][A-Za-z0-9-]{9,}` },
  { name: 'aws_access_key_id', source: '(?<![A-Za-z0-9])(?<keep>(?:AKIA|ASIA|AIDA|AROA|AGPA|ANPA|AIPA))[0-9A-Z]{16}(?![A-Za-z0-9])' },
  { name: 'google_api_key', source: `${START}(?<keep>AIza)[0-9A-Za-z_-]{35}${END}` },
  { name: 'npm_token', source: `${START}(?<keep>npm_)[A-Za-z0-9]{36}${END}` },
  { name: 'huggingface_token', source: `${START}(?<keep>hf_)[A-Za-z0-9]{30,}${END}` },
  { name: 'telegram_bot_token', source: '(?<![A-Za-z0-9])(?<keep>[0-9]{8,10}:)AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])' },
  { name: 'jwt', source: `${START}(?<keep>eyJ)[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}` },
  // `Authorization: Bearer …` in a header, a curl line or a log; a bare `Bearer` needs a token-sized word.
  {
    name: 'authorization',
    source:
      '(?<keep>(?<![A-Za-z0-9-])(?:Proxy-)?[Aa]uthorization["\']?\\s*[:=]\\s*["\']?(?:[Bb]earer|[Bb]asic|[Tt]oken|Bot)\\s+)[A-Za-z0-9._~+/=-]{8,}' +
      '|(?<![A-Za-z0-9])(?<keep2>Bearer\\s+)[A-Za-z0-9._~+/-]{20,}=*',
  },
  // scheme://user:password@host — the password goes, the rest stays readable.
  { name: 'url_password', source: '(?<keep>(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\\s:/?#@"\'<>]{1,256}:)[^\\s/?#@"\'<>]{1,256}(?=@)' },
  // FOO_API_KEY=…, DB_PASSWORD="…": a value of 8+ characters holding a letter and a digit (not `$VAR`, not a number).
  {
    name: 'secret_assignment',
    source:
      '(?<keep>(?<![A-Za-z0-9_])[A-Z][A-Z0-9_]{0,63}(?:API_?KEY|_KEY|TOKEN|SECRET|PASSWORD|PASSWD|_PASS|CREDENTIALS?)\\s*=\\s*["\']?)' +
      '(?=[^\\s"\']*[0-9])(?=[^\\s"\']*[A-Za-z])[^\\s"\'$][^\\s"\']{7,}',
  },
  // "api_key": "…", "accessToken": "…" in JSON.
  {
    name: 'json_secret',
    source:
      '(?<keep>"(?:[Aa]pi_?[Kk]ey|API_KEY|[Aa]ccess_?[Tt]oken|[Rr]efresh_?[Tt]oken|[Ii]d_?[Tt]oken|[Aa]uth_?[Tt]oken|[Cc]lient_?[Ss]ecret|[Ss]ecret|[Pp]assword|[Tt]oken)"\\s*:\\s*")' +
      '[^"\\\\\\s]{8,}(?=")',
  },
];

interface Compiled {
  regex: RegExp;
  /** Group names per pattern, in order: the pattern's own, its keep groups, its tail group. */
  groups: { name: string; match: string; keep: string[]; tail?: string; block: boolean }[];
}

/** Joins the patterns into one regex, renaming each one's groups so they stay unique. */
function compile(patterns: readonly SecretPattern[]): Compiled {
  const groups: Compiled['groups'] = [];
  const parts = patterns.map((pattern, index) => {
    const keep: string[] = [];
    let tail: string | undefined;
    const source = pattern.source.replace(/\(\?<(keep\d*|tail)>/g, (_all, name: string) => {
      const renamed = `${name === 'tail' ? 't' : 'k'}${index}_${keep.length + (tail ? 1 : 0)}`;
      if (name === 'tail') tail = renamed;
      else keep.push(renamed);
      return `(?<${renamed}>`;
    });
    const match = `p${index}`;
    groups.push({ name: pattern.name, match, keep, tail, block: pattern.block === true });
    return `(?<${match}>${source})`;
  });
  return { regex: new RegExp(parts.join('|'), 'g'), groups };
}

const compiled = compile(SECRET_PATTERNS);

/**
 * Returns `text` with every credential-shaped string masked (`ghp_[REDACTED]`,
 * `Authorization: Bearer [REDACTED]`, `https://user:[REDACTED]@host`). `onMask` hears the
 * pattern name of each mask (for counts and logs; never the secret).
 */
export function redactSecrets(text: string, onMask?: (name: string) => void): string {
  if (text.length === 0) return text;
  return text.replace(compiled.regex, (...args: unknown[]) => {
    const found = args.at(-1) as Record<string, string | undefined>;
    const group = compiled.groups.find((candidate) => found[candidate.match] !== undefined);
    if (!group) return String(args[0]);
    onMask?.(group.name);
    const keep = group.keep.map((name) => found[name] ?? '').join('');
    const tail = group.tail ? (found[group.tail] ?? '') : '';
    if (!group.block) return `${keep}${REDACTED}`;
    return `${keep}\n${REDACTED}${tail ? `\n${tail}` : ''}`;
  });
}
