#!/usr/bin/env python3
"""Checks META.json against the PGXN Meta Spec 1.0.0 (https://pgxn.org/meta/spec.txt).

The spec's validators (PGXN::Meta::Validator on CPAN, the pgxn_meta crate) are not
reachable from Debian's packages, so this script checks the spec's rules itself:
the mandatory keys, the formats of terms, semantic versions, licences, provides,
prereqs, resources, tags and no_index, and that no unknown key appears (custom keys
start with x_ or X_).  It also checks what PGXN cannot know: that the distribution's
version is sbf.control's default_version and that every provided file exists.
Prints one line per problem and "N passed, N failed" (one check per rule group).
"""
import json
import os
import re
import sys

SEMVER = re.compile(r'^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)'
                    r'(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$')
TERM = re.compile(r'^[^\s/\\:\x00-\x1f\x7f]{2,}$')
LICENSES = {'agpl_3', 'apache_1_1', 'apache_2_0', 'artistic_1', 'artistic_2',
            'bsd', 'freebsd', 'gfdl_1_2', 'gfdl_1_3', 'gpl_1', 'gpl_2', 'gpl_3',
            'lgpl_2_1', 'lgpl_3_0', 'mit', 'mozilla_1_0', 'mozilla_1_1',
            'openssl', 'perl_5', 'postgresql', 'qpl_1_0', 'ssleay', 'sun',
            'zlib', 'open_source', 'restricted', 'unrestricted', 'unknown'}
PHASES = {'configure', 'build', 'test', 'runtime', 'develop'}
RELATIONS = {'requires', 'recommends', 'suggests', 'conflicts'}
TOP = {'name', 'version', 'abstract', 'maintainer', 'license', 'provides',
       'meta-spec', 'description', 'generated_by', 'tags', 'no_index',
       'prereqs', 'release_status', 'resources'}
REQUIRED = ['name', 'version', 'abstract', 'maintainer', 'license', 'provides',
            'meta-spec']
VERSION_RANGE = re.compile(r'^\s*(?:(?:==|!=|>=|<=|>|<)\s*)?(\S+)\s*$')


def custom(key):
    return re.match(r'^[xX]_.', key) is not None


def nonempty_str(v):
    return isinstance(v, str) and v.strip() != ''


def check_version_req(v):
    """A prereq version: 0, a semver, or a comma-separated list of ranges."""
    if v == 0 or v == '0':
        return True
    if not isinstance(v, str):
        return False
    for part in v.split(','):
        m = VERSION_RANGE.match(part)
        if not m or not (SEMVER.match(m.group(1)) or m.group(1) == '0'):
            return False
    return True


def check(meta, root):
    problems = {}

    def rule(group, ok, what):
        problems.setdefault(group, [])
        if not ok:
            problems[group].append(what)

    for key in REQUIRED:
        rule('mandatory keys', key in meta, f'missing mandatory key {key!r}')
    for key in meta:
        rule('known keys', key in TOP or custom(key), f'unknown key {key!r}')

    rule('name', isinstance(meta.get('name'), str) and TERM.match(meta['name']),
         'name must be a term of 2+ characters without /, \\, :, spaces or controls')
    rule('version', isinstance(meta.get('version'), str) and SEMVER.match(meta['version']),
         'version must be a semantic version (x.y.z)')
    for key in ('abstract', 'description', 'generated_by'):
        if key in meta:
            rule('strings', nonempty_str(meta[key]), f'{key} must be a non-empty string')

    m = meta.get('maintainer')
    rule('maintainer', nonempty_str(m) or (isinstance(m, list) and m and
                                           all(nonempty_str(x) for x in m)),
         'maintainer must be a string or a non-empty array of strings')

    lic = meta.get('license')
    if isinstance(lic, str):
        rule('license', lic in LICENSES, f'unknown licence name {lic!r}')
    elif isinstance(lic, list):
        rule('license', lic and all(x in LICENSES for x in lic), 'unknown licence in array')
    elif isinstance(lic, dict):
        rule('license', lic and all(nonempty_str(k) and nonempty_str(v) and
                                    re.match(r'^https?://', v) for k, v in lic.items()),
             'licence object must map names to URLs')
    else:
        rule('license', False, 'license must be a string, an array or an object')

    prov = meta.get('provides')
    rule('provides', isinstance(prov, dict) and prov, 'provides must be a non-empty object')
    for ext, p in (prov or {}).items() if isinstance(prov, dict) else []:
        rule('provides', TERM.match(ext) is not None, f'extension name {ext!r} is not a term')
        if not isinstance(p, dict):
            rule('provides', False, f'provides.{ext} must be an object')
            continue
        for key in p:
            rule('provides', key in ('file', 'version', 'abstract', 'docfile') or custom(key),
                 f'unknown key provides.{ext}.{key}')
        rule('provides', nonempty_str(p.get('file')), f'provides.{ext}.file is mandatory')
        rule('provides', isinstance(p.get('version'), str) and SEMVER.match(p['version']),
             f'provides.{ext}.version must be a semantic version')
        for key in ('file', 'docfile'):
            if nonempty_str(p.get(key)):
                rule('files exist', os.path.isfile(os.path.join(root, p[key])),
                     f'provides.{ext}.{key} names a missing file {p[key]}')

    spec = meta.get('meta-spec')
    rule('meta-spec', isinstance(spec, dict) and spec.get('version') == '1.0.0' and
         all(k in ('version', 'url') or custom(k) for k in spec),
         'meta-spec must be {"version": "1.0.0"[, "url": ...]}')

    pre = meta.get('prereqs', {})
    rule('prereqs', isinstance(pre, dict), 'prereqs must be an object')
    for phase, rels in (pre.items() if isinstance(pre, dict) else []):
        rule('prereqs', phase in PHASES or custom(phase), f'unknown prereq phase {phase!r}')
        if not isinstance(rels, dict):
            rule('prereqs', False, f'prereqs.{phase} must be an object')
            continue
        for rel, deps in rels.items():
            rule('prereqs', rel in RELATIONS or custom(rel), f'unknown relation {phase}.{rel}')
            if not isinstance(deps, dict):
                rule('prereqs', False, f'prereqs.{phase}.{rel} must be an object')
                continue
            for name, ver in deps.items():
                rule('prereqs', TERM.match(name) is not None, f'prereq name {name!r}')
                rule('prereqs', check_version_req(ver), f'prereq version {name}: {ver!r}')

    if 'release_status' in meta:
        rule('release_status', meta['release_status'] in ('stable', 'testing', 'unstable'),
             'release_status must be stable, testing or unstable')
    if 'tags' in meta:
        t = meta['tags']
        rule('tags', isinstance(t, list) and t and
             all(isinstance(x, str) and 1 <= len(x) <= 255 and '/' not in x for x in t),
             'tags must be a non-empty array of 1..255-character strings')
    if 'no_index' in meta:
        ni = meta['no_index']
        rule('no_index', isinstance(ni, dict) and all(k in ('file', 'directory') or custom(k)
                                                       for k in ni),
             'no_index may hold only file and directory')
    if 'resources' in meta:
        r = meta['resources']
        rule('resources', isinstance(r, dict) and all(
            k in ('homepage', 'bugtracker', 'repository') or custom(k) for k in r),
            'resources may hold homepage, bugtracker and repository')

    # what PGXN cannot know: the version is the one the control file installs
    ctl = open(os.path.join(root, 'sbf.control')).read()
    dv = re.search(r"default_version\s*=\s*'([^']+)'", ctl)
    want = (dv.group(1) + '.0') if dv else None
    rule('control file', meta.get('version') == want,
         f'version {meta.get("version")!r} differs from sbf.control\'s {want!r}')
    for ext, p in (prov.items() if isinstance(prov, dict) else []):
        if isinstance(p, dict):
            rule('control file', p.get('version') == want,
                 f'provides.{ext}.version differs from sbf.control\'s {want!r}')
    return problems


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, 'META.json')
    try:
        with open(path) as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        print(f'meta: {path}: {e}')
        print('0 passed, 1 failed')
        return 1
    if not isinstance(meta, dict):
        print('meta: the top level must be an object')
        print('0 passed, 1 failed')
        return 1
    problems = check(meta, os.path.dirname(os.path.abspath(path)))
    npass = sum(1 for v in problems.values() if not v)
    nfail = sum(1 for v in problems.values() if v)
    for group, items in problems.items():
        for what in items:
            print(f'meta: {group}: {what}')
    print(f'meta: {os.path.basename(path)} checked against PGXN Meta Spec 1.0.0')
    print(f'{npass} passed, {nfail} failed')
    return 1 if nfail else 0


if __name__ == '__main__':
    sys.exit(main())
