#!/usr/bin/env python3
"""Runs the SQL examples of the documentation and compares their output.

Usage (inside a cluster, e.g. from test/doc_check.sh):
    python3 test/doc_check.py README.md docs/*.md

Every ```sql block of each file runs, in the order of the file, in one fresh
database per file (created here; sbf must be installed in the server).  When
no block of a file creates the extension (CREATE EXTENSION [IF NOT EXISTS]
sbf), CREATE EXTENSION sbf runs first.
Each block is one psql run with ON_ERROR_STOP, so a block passes when every
statement in it succeeds.  When the block is followed (blank lines aside) by
a ```text block, that is the output the text shows, and psql's output of the
block (psql -X -q: query results and messages, no command tags) must equal
it, line by line, trailing blanks aside.

An HTML comment on the lines just before a block changes how it is checked:
    <!-- doc_check: skip REASON -->  not run (needs Citus, several servers, a
                                     file of your own...); counted as skipped
    <!-- doc_check: error -->        the block must fail: it runs without
                                     ON_ERROR_STOP and its output, errors
                                     included, is compared
Prints one line per block and ends with "N passed, N failed, N skipped".
Exits 1 if any block failed.

With --update (first argument), a ```text block whose block ran without an
error but printed something else is rewritten with what psql printed, as a
maintainer copies pg_regress results over expected files: review the diff.
"""

import os
import re
import subprocess
import sys

FENCE = re.compile(r'^```(\w*)\s*$')
MARK = re.compile(r'^<!--\s*doc_check:\s*(skip|error)\b\s*(.*?)\s*-->\s*$')
PSQL_PREFIX = re.compile(r'^psql:<stdin>:\d+: ')


def blocks(path):
    """The ```sql blocks of a file: (line, sql, mark, reason, expected)."""
    lines = open(path, encoding='utf-8').read().split('\n')
    fences = []          # (start line index, language, body lines)
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m:
            j = i + 1
            while j < len(lines) and not lines[j].startswith('```'):
                j += 1
            fences.append((i, m.group(1), lines[i + 1:j], j))
            i = j + 1
        else:
            i += 1
    out = []
    for n, (start, lang, body, end) in enumerate(fences):
        if lang != 'sql':
            continue
        # a marker comment just before the fence (blank lines allowed)
        mark, reason = None, ''
        k = start - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        if k >= 0:
            mm = MARK.match(lines[k].strip())
            if mm:
                mark, reason = mm.group(1), mm.group(2)
        # the output the text shows: the next fence, if it is ```text and
        # only blank lines lie between
        expected = None
        if n + 1 < len(fences):
            nstart, nlang, nbody, _ = fences[n + 1]
            if nlang == 'text' and all(not l.strip() for l in lines[end + 1:nstart]):
                expected = nbody
        out.append((start + 1, '\n'.join(body) + '\n', mark, reason, expected,
                    (fences[n + 1][0], fences[n + 1][3]) if expected is not None else None))
    return out


def normalize(text_lines):
    """Lines without psql's stdin prefix and trailing blanks, outer blank lines dropped."""
    lines = [PSQL_PREFIX.sub('', l).rstrip() for l in text_lines]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def psql(db, sql, stop_on_error=True):
    psql_bin = os.environ.get('PSQL', 'psql')
    cmd = [psql_bin, '-X', '-q', '-d', db, '-P', 'pager=off']
    if stop_on_error:
        cmd += ['-v', 'ON_ERROR_STOP=1']
    env = dict(os.environ, PGTZ='UTC', PGDATESTYLE='ISO, MDY')
    r = subprocess.run(cmd, input=sql, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, env=env)
    return r.returncode, r.stdout


def rewrite(path, updates):
    """Replaces the bodies of ```text blocks: updates maps (open, close) line indexes to lines."""
    lines = open(path, encoding='utf-8').read().split('\n')
    for (first, last), body in sorted(updates.items(), reverse=True):
        lines[first + 1:last] = body
    open(path, 'w', encoding='utf-8').write('\n'.join(lines))


def main(paths):
    update = bool(paths) and paths[0] == '--update'
    if update:
        paths = paths[1:]
    passed = failed = skipped = 0
    for fileno, path in enumerate(paths):
        found = blocks(path)
        if not found:
            continue
        db = 'doc_check_%d' % fileno
        rc, out = psql('postgres', 'DROP DATABASE IF EXISTS %s; CREATE DATABASE %s;' % (db, db))
        if rc != 0:
            print('FAIL %s: cannot create a database: %s' % (path, out.strip()))
            failed += len(found)
            continue
        if not any(re.search(r'(?i)create\s+extension\s+(?:if\s+not\s+exists\s+)?sbf\b', b[1]) for b in found):
            psql(db, 'CREATE EXTENSION sbf;')
        updates = {}
        for line, sql, mark, reason, expected, textpos in found:
            where = '%s:%d' % (path, line)
            if mark == 'skip':
                print('skip %s: %s' % (where, reason or 'marked skip'))
                skipped += 1
                continue
            rc, out = psql(db, sql, stop_on_error=(mark != 'error'))
            problem = None
            if mark == 'error':
                if 'ERROR:' not in out:
                    problem = 'expected an error, got none'
            elif rc != 0:
                problem = 'psql exited %d' % rc
            if problem is None and expected is not None:
                got, want = normalize(out.split('\n')), normalize(expected)
                if got != want:
                    problem = 'output differs from the text'
                    if update and (rc == 0 or mark == 'error'):
                        updates[textpos] = got
            if problem is None:
                print('ok   %s%s' % (where, ' (output compared)' if expected is not None else ''))
                passed += 1
            else:
                print('FAIL %s: %s' % (where, problem))
                for l in out.rstrip('\n').split('\n'):
                    print('     | ' + l)
                if expected is not None:
                    print('     expected:')
                    for l in expected:
                        print('     | ' + l)
                failed += 1
        psql('postgres', 'DROP DATABASE IF EXISTS %s;' % db)
        if updates:
            rewrite(path, updates)
            print('updated %d output block(s) of %s' % (len(updates), path))
    print('%d passed, %d failed, %d skipped' % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
