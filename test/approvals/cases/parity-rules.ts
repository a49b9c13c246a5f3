/*
 * Issue 24: kinds the system's own tests ask about (or let pass) that our rules missed.
 * Written fresh for this suite; each row failed before its rule changed.
 */
import { blocked, risky, safe, type CaseGroup } from './types.js';

export const PARITY_ASKS: CaseGroup = {
  trick: "what the system's tests ask about and we let pass",
  cases: [
    ...risky(
      // Reading a whole disk: everything on it, deleted files too.
      'dd if=/dev/nvme0n1 of=backup.img bs=4M',
      'gzip -c < /dev/sdb > sdb.gz',
      // /private/etc is /etc on macOS.
      'echo "nameserver 1.1.1.1" > /private/etc/resolv.conf',
      'sudo tee -a /private/etc/hosts < extra-hosts',
      // A repository's whole history.
      'rm -rf .git',
      'rm -fr vendor/lib/.git/',
      // Made executable, then run from where it may be.
      'chmod 755 /tmp/setup.sh; cd /tmp && ./setup.sh',
      // Container engines and the gateway's CLI behind global options.
      'docker --log-level warn restart web',
      'podman --url unix:///run/podman.sock kill db',
      'docker -H ssh://prod stop api',
      'hermes --config other.yaml gateway stop',
      // ssh with no command: the far shell runs what stdin holds.
      'ssh build-box <<EOF\nsudo systemctl restart nginx\nEOF',
      "printf 'docker kill api\\n' | ssh prod",
      // A bare root shell.
      'sudo -s',
    ),
    ...blocked('ssh box <<EOF\nreboot\nEOF', 'echo "rm -rf /" | sudo -s'),
  ],
};

export const PARITY_PASSES: CaseGroup = {
  trick: "what the system's tests let pass and we asked about",
  cases: [
    ...safe(
      // Longer names and addresses than a metadata service's.
      'curl https://api.example.test/v1/169.254.169.2549',
      'curl https://metadata.google.internal.corp.example.test/',
      'ping 10.169.254.169.254.example.test',
      // sudo --shell with a command runs that command: the command is judged.
      'sudo --shell whoami',
      'sudo -u ada -s id',
      // killall -V prints its version.
      'killall -V',
      // A full-width name reads as the ASCII one (judged as `ls`).
      'ｌｓ -ｌ',
      'ssh build-box uptime',
      'chmod +x a.sh && ./b.sh',
      'dd if=/dev/urandom of=key.bin bs=32 count=1',
    ),
    // Still asked: the service itself, through wildcard DNS, with a trailing dot.
    ...risky('curl http://169.254.169.254.nip.io/latest/meta-data/', 'curl http://metadata.google.internal./computeMetadata/v1/', 'сurl https://example.test'),
  ],
};
