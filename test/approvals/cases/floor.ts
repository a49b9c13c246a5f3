/* The floor's own targets, recursive deletes of /tmp itself, control characters, fork bombs and interpreter code. */
import { blocked, risky, safe, type CaseGroup } from './types.js';

export const FLOOR: CaseGroup = {
  trick: 'the floor: the system, home folders, disks, power',
  cases: [
    ...blocked(
      'rm -rf /',
      'rm -rf /*',
      'rm -rf ~',
      'rm -rf ~/',
      'rm -rf "$HOME"',
      'rm -rf /usr',
      'rm -fr /etc/',
      'rm -r -f /var',
      'sudo rm -rf --no-preserve-root /',
      '\\rm -rf /',
      '/bin/rm -rf /boot',
      'echo hi && rm -rf /',
      'true || rm -rf /usr/*',
      'mkfs.ext4 /dev/sda1',
      'sudo mkfs -t ext4 /dev/nvme0n1',
      'dd if=/dev/zero of=/dev/sda',
      'cat x > /dev/sda',
      'echo x | sudo tee /dev/sda',
      'shred /dev/nvme0n1',
      'wipefs -a /dev/sda',
      'blkdiscard /dev/sda',
      'shutdown -h now',
      'reboot',
      'halt',
      'poweroff',
      'init 0',
      'systemctl poweroff',
      'echo b > /proc/sysrq-trigger',
      'chmod -R 777 /',
      'chown -R x /',
      'mv /etc /tmp/x',
      'mv ~ /tmp/gone',
      'mv /home/ada /home/ada.old',
      'rsync -a --delete empty/ ~',
      'find / -delete',
      'find /usr -type f -exec rm {} +',
    ),
  ],
};

export const TMP_ITSELF: CaseGroup = {
  trick: 'recursive deletes of /tmp itself',
  cases: [
    ...risky('rm -rf /tmp', 'rm -rf /tmp/', 'rm -rf /tmp/*', 'rm -rf /tmp/.', 'rm -rf /tmp/.*', 'cd /tmp && rm -rf *', 'rm -rf /var/tmp', 'find /tmp -delete', 'find /tmp -mindepth 1 -delete'),
    ...safe('rm -rf /tmp/build-123', 'rm -rf /tmp/hermes-*', 'rm -f /tmp/x.log', 'find /tmp -name "*.sock"'),
  ],
};

export const CONTROL_CHARACTERS: CaseGroup = {
  trick: 'carriage returns and control characters',
  cases: [
    ...blocked('printf SAFE\r#x; reboot', 'printf SAFE\\r#x; reboot', 'echo ok\r\nreboot'),
    ...risky('echo ok\r# ; rm -rf build', 'ls\u200b -la', 'echo \u202e hi', 'echo a\u0007b', 'x\u0008ls'),
    ...safe('echo "tab\there"', "printf 'a\\tb\\n'", "echo $'\\r'"),
  ],
};

export const FORK_BOMBS: CaseGroup = {
  trick: 'fork bombs in any language',
  cases: [
    ...blocked(
      ':(){ :|:& };:',
      'bomb(){ bomb|bomb& };bomb',
      'f(){ f & f; }; f',
      'perl -e "fork while 1"',
      "perl -e 'fork while fork'",
      "python3 -c 'import os\nwhile True: os.fork()'",
      "ruby -e 'loop { fork }'",
    ),
  ],
};

export const INTERPRETER_CODE: CaseGroup = {
  trick: 'shell commands inside interpreter code',
  cases: [
    ...blocked(
      'python3 -c \'import shutil; shutil.rmtree("/")\'',
      'python3 -c "import os; os.system(\'rm -rf ~\')"',
      'python3 -c \'import subprocess; subprocess.run(["rm","-rf","/"])\'',
      'perl -e \'system("rm -rf /")\'',
      "ruby -e '`rm -rf /`'",
      'node -e \'require("child_process").execSync("rm -rf ~")\'',
      'node -e "require(\'fs\').rmSync(\'/\', {recursive: true})"',
      'php -r \'system("reboot");\'',
      'awk \'BEGIN{system("rm -rf /")}\'',
      'python3 -c \'import os; os.system("sudo reboot")\'',
      // chr() arithmetic is worked out: this is `rm -rf /`.
      'python3 -c "import os; os.system(chr(114)+chr(109)+\' -rf /\')"',
    ),
    ...risky(
      'python3 -c \'import subprocess, sys; subprocess.run(["rm", "-rf", sys.argv[1]])\'',
      "echo 'rm -rf ~' | awk '{system($0)}'",
      'node -e \'require("child_process").execSync(process.argv[1])\'',
      'python3 -c "import os; os.remove(os.path.expanduser(\'~/.ssh/authorized_keys\'))"',
      'python3 -c "import os; os.unlink(\'/home/ada/.bashrc\')"',
    ),
    ...safe(
      "python3 -c 'print(1)'",
      'python3 -c \'import subprocess; print(subprocess.run(["git", "status"]).returncode)\'',
      "node -e 'console.log(process.version)'",
      "perl -ne 'print if /foo/' file",
      "ruby -e 'puts 1'",
      'python3 -c "import platform; print(platform.system())"',
    ),
  ],
};
