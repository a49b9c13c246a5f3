import { describe, expect, it } from 'vitest';
import { assessCommand } from '../../src/approvals/index.js';

/*
 * Hostile command lines: the assessment runs in the gateway's event loop, so a string built to
 * make it slow, huge or crash must come back with a verdict, and what it cannot read fails closed.
 * (How fast it is lives in `npm run bench -- approvals`; nothing here is timed.)
 */
const ctx = { home: '/home/ada', hermesHome: '/home/ada/.hermes' };
const verdict = (command: string) => assessCommand(command, ctx);

describe('assessCommand on hostile command lines', () => {
  it.each([
    ['a command line over 64 KiB', `echo ${'word '.repeat(20_000)}`, /more than the 65536 checked/],
    ['a one-megabyte word', `echo ${'a'.repeat(1_000_000)}`, /more than the 65536 checked/],
    ['more than 500 commands', Array(600).fill('ls').join('; '), /more than 500 commands/],
    ['a 2000-stage pipeline', Array(2000).fill('cat').join(' | '), /more than 500 commands/],
    ['3000 command substitutions in one word', `echo ${'$(echo x)'.repeat(3000)}`, /more than 500 commands/],
    ['a case with 3000 branches', `case x in ${'a) ls;; '.repeat(3000)}esac`, /more than 500 commands/],
    ['eval nested 200 deep', `${'eval '.repeat(200)}ls`, /nested more than 6 deep/],
    ['a script that runs itself', "echo 'bash a.sh' > a.sh; bash a.sh", /nested more than 6 deep/],
    ['30 000 words of work', `printf "%s" ${'a '.repeat(30_000)}`, /too long or too complex/],
  ])('blocks %s: it cannot be checked', (_name, command, reason) => {
    const assessment = verdict(command);
    expect(assessment.level).toBe('blocked');
    expect(assessment.level === 'blocked' && assessment.reason).toMatch(reason);
  });

  it.each([
    ['a value doubled forty times', `x=aa; ${'x=$x$x; '.repeat(40)}rm -rf "$x"`],
    ['an array doubled thirty times', `a=(x y); ${'a=("${a[@]}" "${a[@]}"); '.repeat(30)}rm -rf "\${a[@]}"`],
    ['a replacement doubled forty times', `x=aa; ${'x=${x//a/aa}; '.repeat(40)}rm -rf $x`],
    ['a decoded value doubled thirty times', `x=$(echo cm0gLXJmIC8= | base64 -d); ${'x=$(echo $x$x); '.repeat(30)}$x`],
    ['forty brace lists', `${'{a,b}'.repeat(40)} -rf /`],
    ['ten brace lists in front of rm', `${'{a,b}'.repeat(10)}{rm,-rf,/}`],
    ['an unterminated run of 10 001 quotes', '"'.repeat(10_001)],
  ])('still judges %s, and what it cannot see is not safe', (_name, command) => {
    expect(verdict(command).level).not.toBe('safe');
  });

  it('still finds the floor command at the bottom of 300 nested substitutions and defaults', () => {
    expect(verdict(`${'$('.repeat(300)}rm -rf /${')'.repeat(300)}`)).toMatchObject({ level: 'blocked', reason: expect.stringMatching(/recursive delete of \//) });
    expect(verdict(`${'${a:-'.repeat(300)}rm${'}'.repeat(300)} -rf /`)).toMatchObject({ level: 'blocked', reason: expect.stringMatching(/recursive delete of \//) });
  });

  it('keeps ordinary long loops and brace sequences safe', () => {
    expect(verdict('for i in {1..100000}; do echo "$i"; done').level).toBe('safe');
    expect(verdict(`rm -f ${Array.from({ length: 2000 }, (_v, i) => `build/obj${i}.o`).join(' ')}`).level).toBe('safe');
  });
});
