/*
 * Issue 22's list, written fresh: what ran end to end although the floor lists it, as shell
 * commands and interpreter one-liners (`python3 -c`, `node -e`, `perl -e`, `ruby -e`,
 * here-documents), with the verdict each must get. The same list as execute_code scripts is in
 * scripts.ts. Every string here is only ever assessed, never run.
 */
import { blocked, risky, safe, type Case, type CaseGroup } from './types.js';

export const ISSUE_22_COMMANDS: readonly Case[] = [
  // os.system("rm -rf ~/*") in a one-liner and a here-document.
  ...blocked(`python3 -c 'import os; os.system("rm -rf ~/*")'`),
  ...blocked(`python3 - <<'PY'\nimport os\nos.system("rm -rf ~/*")\nPY`),
  // node -e with fs.rmSync(homedir, {recursive: true}).
  ...blocked(`node -e 'const fs = require("fs"); const homedir = require("os").homedir(); fs.rmSync(homedir, { recursive: true, force: true })'`),
  // python3 -c with shutil.rmtree(os.environ["HOME"]) and with the name built at run time.
  ...blocked(`python3 -c 'import os, shutil; shutil.rmtree(os.environ["HOME"])'`),
  ...blocked(`python3 -c 'import os; getattr(__import__("shutil"), "rm" + "tree")(os.environ["HOME"])'`),
  // perl -MFile::Path=rmtree -e 'rmtree($ENV{HOME})'.
  ...blocked(`perl -MFile::Path=rmtree -e 'rmtree($ENV{HOME})'`),
  // Writes to /proc/sys/kernel/core_pattern: echo >, sysctl -w, Python's open.
  ...blocked(`echo '|/tmp/evil %p' > /proc/sys/kernel/core_pattern`),
  ...blocked(`sysctl -w kernel.core_pattern='|/tmp/evil'`),
  ...blocked(`python3 -c 'open("/proc/sys/kernel/core_pattern", "w").write("|/tmp/evil")'`),
  // kill -9 1.
  ...blocked('kill -9 1'),
  // tar -C ~ -xf: unpacks over the home folder's start-up files and keys.
  ...risky('tar -C ~ -xf /tmp/payload.tar'),
  // os.rename of ~/.ssh.
  ...risky(`python3 -c 'import os; os.rename(os.path.expanduser("~/.ssh"), "/tmp/keys")'`),
  // systemctl --user enable --now.
  ...risky('systemctl --user enable --now backdoor.service'),
  // iptables -F.
  ...risky('iptables -F'),
];

export const INTERPRETERS: CaseGroup = {
  trick: 'interpreters and the kernel, by what they do (issue 22)',
  cases: [
    ...ISSUE_22_COMMANDS,
    ...blocked(
      // The home folder however the code asks for it.
      `python3 -c 'import shutil, pathlib; shutil.rmtree(pathlib.Path.home())'`,
      `python3 -c 'import shutil, os; shutil.rmtree(os.path.expanduser("~"))'`,
      `python3 -c 'import shutil, os; h = os.getenv("HOME"); shutil.rmtree(h)'`,
      `python3 -c 'from shutil import rmtree as r; import os; r(os.environ.get("HOME"))'`,
      `node -e 'require("fs").rmSync(process.env.HOME, {recursive: true})'`,
      `node -e 'const { rmSync } = require("node:fs"); rmSync(require("os").homedir(), { recursive: true })'`,
      `ruby -e 'require "fileutils"; FileUtils.rm_rf(Dir.home)'`,
      `perl -e 'use File::Path qw(remove_tree); remove_tree($ENV{HOME})'`,
      // Run-time spellings that the reading works out.
      `python3 -c 'import os; os.system("".join(["r", "m", " -rf ", "/"]))'`,
      `python3 -c 'import os, base64; os.system(base64.b64decode("cm0gLXJmIH4=").decode())'`,
      `python3 -c 'import importlib, os; importlib.import_module("sh" + "util").rmtree(os.environ["HOME"])'`,
      // A function named at run time, aimed at the home folder: it could be rmtree.
      `python3 -c 'import os, shutil, sys; getattr(shutil, sys.argv[1])(os.environ["HOME"])'`,
      // The kernel's other ways to run a program as root, and init.
      'echo /tmp/x > /proc/sys/kernel/modprobe',
      `printf ':x:M::MZ::/tmp/x:' | tee /proc/sys/fs/binfmt_misc/register`,
      `python3 -c 'import os; os.kill(1, 9)'`,
      'kill -KILL 1',
      `perl -e 'kill 9, -1'`,
    ),
    ...risky(
      'echo 1 > /proc/sys/kernel/sysrq_not_a_trigger',
      'sysctl -w vm.overcommit_memory=1',
      'sysctl -p /tmp/settings.conf',
      'tar -xzf /tmp/payload.tgz -C /',
      'cd ~ && tar xf /tmp/payload.tar',
      'unzip -o /tmp/payload.zip -d ~',
      'systemctl enable ssh',
      'nft flush ruleset',
      'ufw disable',
      'ip6tables -P INPUT ACCEPT',
      // Unknown targets of destructive calls, and functions named at run time: asked.
      `python3 -c 'import shutil, sys; shutil.rmtree(sys.argv[1])'`,
      `python3 -c 'import shutil, sys; getattr(shutil, sys.argv[1])("build")'`,
      `python3 -c 'import os, sys; os.system(sys.argv[1])'`,
      `python3 -c 'import os; exec(input())'`,
      `ruby -e 'File.rename(File.expand_path("~/.ssh"), "/tmp/k")'`,
      `node -e 'require("fs").renameSync(require("os").homedir() + "/.ssh", "/tmp/k")'`,
    ),
    ...safe(
      'tar -xzf release.tgz -C build',
      'tar -tzf /tmp/payload.tgz',
      'tar -czf backup.tgz ~/notes',
      'sysctl kernel.core_pattern',
      'cat /proc/sys/kernel/core_pattern',
      'iptables -L -n',
      'iptables -S',
      'nft list ruleset',
      'systemctl --user status backdoor.service',
      'kill -0 4242',
      'kill -0 1',
      `python3 -c 'import subprocess; subprocess.run(["ls", "-la"])'`,
      `python3 -c 'import shutil, tempfile; d = tempfile.mkdtemp(); shutil.rmtree(d)'`,
      `python3 -c 'open("out.txt", "w").write("ok")'`,
      `python3 -c 'import os; os.rename("report.tmp", "report.txt")'`,
      `node -e 'require("fs").writeFileSync("out.json", "{}")'`,
      `perl -e 'open(my $fh, ">", "out.txt"); print $fh "ok"'`,
    ),
  ],
};
