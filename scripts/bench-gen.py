#!/usr/bin/env python3
"""Writes an N-Triples file of at least TRIPLES triples made from real
vocabularies: the zazuko N-Quads files with their graph dropped, repeated
with renamed subjects (and blank node labels) so that every copy is new."""
import glob
import os
import re
import sys

triples = int(sys.argv[1])
src_dir = sys.argv[2]
out_path = sys.argv[3]

# Subject, predicate, object, optional graph, final dot.
TERM = r'(<[^>]*>|_:[^ \t]+|"(?:[^"\\]|\\.)*"(?:@[A-Za-z0-9-]+|\^\^<[^>]*>)?)'
LINE = re.compile(r'^' + TERM + r'\s+' + TERM + r'\s+' + TERM + r'\s*(?:' + TERM + r'\s*)?\.\s*$')

def file_blank(term, i):
    # Blank node labels are local to their file: keep them apart.
    return '_:f%dx%s' % (i, term[2:]) if term.startswith('_:') else term

base = []
for i, path in enumerate(sorted(glob.glob(os.path.join(src_dir, '*.nq')))):
    with open(path, encoding='utf-8') as f:
        for line in f:
            m = LINE.match(line)
            if m:
                base.append((file_blank(m.group(1), i), m.group(2),
                             file_blank(m.group(3), i)))
if not base:
    sys.exit('no statements found in ' + src_dir)

def rename(term, k):
    if term.startswith('_:'):
        return '_:c%d%s' % (k, term[2:])
    if term.startswith('<http://') or term.startswith('<https://'):
        i = term.index('//') + 2
        return term[:i] + 'c%d.' % k + term[i:]
    if term.startswith('<'):
        return term[:-1] + '_c%d>' % k
    return term

written = 0
k = 0
with open(out_path + '.part', 'w', encoding='utf-8') as out:
    while written < triples:
        lines = []
        for s, p, o in base:
            if k:
                s = rename(s, k)
                if o.startswith('_:'):
                    o = rename(o, k)
            lines.append('%s %s %s .\n' % (s, p, o))
        out.writelines(lines)
        written += len(lines)
        k += 1
os.rename(out_path + '.part', out_path)
print('%d triples (%d copies of %d) in %s' % (written, k, len(base), out_path))
