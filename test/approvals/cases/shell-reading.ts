/*
 * Issue 24: shapes the system's own tests refuse or let through that our reading got wrong —
 * comments that are not comments, env -S read as env's own arguments, carried commands that
 * never run. Written fresh for this suite.
 */
import { blocked, risky, safe, type CaseGroup } from './types.js';

export const NOT_COMMENTS: CaseGroup = {
  trick: 'a # that bash does not read as a comment',
  cases: [
    ...blocked(
      'echo +(one|two)#tail; shutdown -h now',
      'ls !(keep)#x && reboot',
      '[[ $v =~ ^(x|y)# ]] && poweroff',
      'echo $(case $v in a) echo one;; esac)#tag; reboot',
      // `case` after a `then` that is only an argument is a word too: the `)` closes the substitution.
      'echo $(echo then case a in b)#x; reboot',
      // A line ended by a backslash joins `$` to the quote after it: `$'…'` hides the `#`.
      "echo $\\\n'don\\'t #'; reboot",
    ),
    ...safe(
      "echo $\\\n'it\\'s' # note; reboot",
      '(echo done)# note; reboot',
      'echo $(case $v in a) echo one;; esac) # note; reboot',
      'echo $(printf %s then case x in y)',
      "echo $'\\U00110000'",
    ),
  ],
};

export const ENV_SPLIT: CaseGroup = {
  trick: "env -S read as env's own arguments",
  cases: [
    ...blocked(
      "env -S 'sh\\_-c\\_poweroff'",
      'env --split-string="rm\\_-rf\\_/"',
      "env -S '-u HOME sh -c reboot'",
      'env -vS/bin/bash -c reboot',
      'env X-Y=1 bash -c reboot',
      "env --argv0 name -S 'sh -c reboot'",
      "env -a name sh -c 'rm -rf ~'",
      // A NUL ends a $'…' string in bash: what follows it inside the quotes is dropped.
      "env --s$'\\0junk'='sh -c poweroff'",
      "su -c shut$'\\c@x'down ada",
    ),
    ...safe("env -S 'echo\\_reboot'", "env -S 'printf hi\\cdone; reboot'"),
  ],
};

export const NEVER_RUNS: CaseGroup = {
  trick: 'carried commands their carrier refuses to run',
  cases: [
    ...safe(
      'env -0 reboot',
      'env --nul sh -c reboot',
      'su -- ada --command reboot',
      'su -p -w PATH -c reboot ada',
      'runuser -u ada -c reboot',
      'timeout --verbose echo sh -c reboot',
      'nice -n low sh -c reboot',
    ),
    // What runs them for real stays refused.
    ...blocked('su -c reboot ada', 'runuser -u ada -- reboot', 'timeout 5s sh -c reboot', 'nice -n 5 sh -c reboot'),
    ...risky('timeout "$T" sh -c "$CMD"'),
  ],
};
