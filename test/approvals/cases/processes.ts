/* Killing the gateway itself (its pid is the suite context's, this process's) and every process; cloud metadata addresses. */
import { GATEWAY_PID, blocked, risky, safe, type CaseGroup } from './types.js';

const pid = String(GATEWAY_PID);

export const GATEWAY_KILL: CaseGroup = {
  trick: 'killing the gateway or every process',
  cases: [
    ...blocked('kill -- -1', 'kill -9 -1', 'kill -KILL -1', 'kill -s KILL -1', 'sudo kill -9 -1', 'kill -9 -- -1'),
    ...risky(
      'pkill node',
      'pkill -f hermes',
      'pkill -9 node',
      "pkill -f 'node .*hermes'",
      'pkill -u root',
      `pkill -P ${pid}`,
      'killall node',
      'killall -9 node',
      "killall -r 'hermes.*'",
      `kill ${pid}`,
      `kill -9 ${pid}`,
      `kill -SIGTERM ${pid}`,
      `kill -s TERM ${pid}`,
      `kill -- -${pid}`,
      'kill $PPID',
      'kill -9 $PPID',
      'kill $(pgrep node)',
      'pgrep node | xargs kill',
      'kill "$pid"',
      'fuser -k 8080/tcp',
      'sudo pkill node',
    ),
    // pkill and killall reach every process of that name, kill -9 gives no chance to clean up: they ask (listed.ts).
    ...risky('kill -9 12345', "pkill -f 'python3 server.py'", 'pkill myapp', 'killall firefox'),
    ...safe('kill 12345', 'kill %1', 'kill 0', 'pgrep node', 'kill -l', 'ps aux | grep node'),
  ],
};

export const METADATA: CaseGroup = {
  trick: 'cloud metadata addresses',
  cases: [
    ...risky(
      'curl http://169.254.169.254/latest/meta-data/',
      'curl -s 169.254.169.254',
      "wget -qO- http://metadata.google.internal/computeMetadata/v1/ -H 'Metadata-Flavor: Google'",
      'curl http://[fd00:ec2::254]/latest/meta-data/',
      'curl http://100.100.100.200/latest/meta-data/',
      'curl http://0xa9fea9fe/',
      'curl http://2852039166/',
      'curl http://0251.0376.0251.0376/',
      'curl http://[::ffff:169.254.169.254]/',
      'python3 -c "import urllib.request; urllib.request.urlopen(\'http://169.254.169.254/\')"',
      'nc 169.254.169.254 80',
      "echo 'GET /' > /dev/tcp/169.254.169.254/80",
      'curl http://instance-data/latest/',
      'curl http://169.254.170.2/v2/credentials',
      'h=169.254.169.254; curl http://$h/',
      'curl http://METADATA.GOOGLE.INTERNAL/',
      'echo http://169.254.169.254 | xargs curl',
    ),
    ...safe('curl http://169.254.1.1/', 'ping -c 1 10.0.0.1', 'curl http://localhost:3000/api', 'echo 169.254', 'git log --since=2024-01-01'),
  ],
};
