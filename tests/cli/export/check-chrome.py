# check-chrome.py FILE: a Chrome Trace Event Format file as --chrome writes
# it: the keys each phase needs, "B"/"E" balanced per thread and nested
# by name; prints one line per thread: its events' phases and names
import json, sys
from collections import defaultdict

doc = json.load(open(sys.argv[1]))
need = {'M': ['name', 'ph', 'pid', 'tid', 'args'], 'B': ['name', 'ph', 'ts', 'pid', 'tid', 'cat'],
        'E': ['name', 'ph', 'ts', 'pid', 'tid'], 'X': ['name', 'ph', 'ts', 'dur', 'pid', 'tid'],
        'i': ['name', 'ph', 'ts', 'pid', 'tid', 's', 'args']}
bad = 0
for k in ('traceEvents', 'displayTimeUnit', 'otherData'):
    if k not in doc:
        print('missing', k); bad = 1
stacks, lines = defaultdict(list), defaultdict(list)
for e in doc['traceEvents']:
    ph = e.get('ph')
    if ph not in need or any(k not in e for k in need[ph]):
        print('bad event', e); bad = 1; continue
    if 'ts' in e and not isinstance(e['ts'], (int, float)):
        print('bad ts', e); bad = 1
    t = (e['pid'], e['tid'])
    if ph == 'B':
        stacks[t].append(e['name'])
    elif ph == 'E':
        if not stacks[t] or stacks[t].pop() != e['name']:
            print('unbalanced E', e); bad = 1
    lines[t].append(ph + ' ' + e['name'] + (' ' + json.dumps(e['args'], sort_keys=True)
                                             if ph in 'Mi' else ''))
for t, s in stacks.items():
    if s:
        print('open at the end', t, s); bad = 1
for i, t in enumerate(sorted(lines)):
    print('thread %d: %s' % (i, ' | '.join(lines[t])))
sys.exit(bad)
