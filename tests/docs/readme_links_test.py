#!/usr/bin/python3
"""README.md links every document in docs/ and every SCHEMA.md, so none is left unfound.
Usage: readme_links_test.py SOURCE_DIR"""

import glob
import os
import sys

source_dir = sys.argv[1]
with open(os.path.join(source_dir, "README.md")) as f:
    readme = f.read()
documents = sorted(os.path.relpath(path, source_dir)
                   for path in glob.glob(os.path.join(source_dir, "docs", "*.md")) +
                   glob.glob(os.path.join(source_dir, "*", "SCHEMA.md")))
missing = [doc for doc in documents if "](%s)" % doc not in readme]
for doc in missing:
    print("FAILED: README.md has no link to " + doc)
print("%d passed, %d failed" % (len(documents) - len(missing), len(missing)))
sys.exit(1 if missing else 0)
