import { describe, expect, it } from 'vitest';
import { assessScript } from '../../src/approvals/index.js';
import { SCRIPT_CASES, SUITE_CONTEXT } from './cases/index.js';

/*
 * execute_code scripts judged before they run by what they do (issue 22): each case table row
 * gets its verdict, and a refusal or a question names the line of the call and what it does.
 * The scripts are only assessed here; nothing in this file runs one.
 */
const rows = SCRIPT_CASES.map(([script, verdict, line]) => ({ shown: JSON.stringify(script.split('\n').at(-1)), script, verdict, line }));

describe('execute_code scripts, judged by what they do', () => {
  it.each(rows)('$shown is $verdict', ({ script, verdict, line }) => {
    const assessment = assessScript(script, SUITE_CONTEXT);
    expect(assessment.level).toBe(verdict);
    if (line !== undefined && assessment.level !== 'safe') expect(assessment.reason).toMatch(new RegExp(`^line ${line} \\(`));
  });

  it('says why: the call as written and what it would do', () => {
    const assessment = assessScript('import os\nos.system("rm -rf ~/*")', SUITE_CONTEXT);
    expect(assessment).toEqual({ level: 'blocked', reason: 'line 2 (os.system("rm -rf ~/*")): recursive delete of ~/* (the system or a home folder)' });
  });

  it('holds ordinary work to a handful of safe scripts in the table, and every issue path to a refusal or a question', () => {
    expect(rows.filter((row) => row.verdict === 'safe').length).toBeGreaterThanOrEqual(10);
    expect(rows.filter((row) => row.verdict === 'blocked').length).toBeGreaterThanOrEqual(8);
  });

  it('fails closed on a script too long to read, and never throws', () => {
    expect(assessScript(`print(1)\n${'#'.repeat(300 * 1024)}`, SUITE_CONTEXT).level).toBe('risky');
    expect(assessScript('import os\nos.system((("rm -rf ~")))', SUITE_CONTEXT).level).toBe('blocked');
    for (const odd of ['os.system(("', 'getattr(', ')(', '"""', 'exec(exec(exec(exec(exec(exec("x"))))))', '\\'.repeat(5000), 'f"{'.repeat(2000)]) {
      expect(() => assessScript(odd, SUITE_CONTEXT)).not.toThrow();
    }
  });
});
