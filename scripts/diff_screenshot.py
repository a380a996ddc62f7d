#!/usr/bin/env python3
"""Renders a Markdown file (mcp-audit diff --markdown) as a pull-request
comment would show it, and screenshots it: reports/diff-screenshot.png.

usage: diff_screenshot.py DIFF.md OUT.png

GitHub renders comments with cmark-gfm; this uses the same library
(PyPI `cmarkgfm`, GitHub-flavoured: tables, autolinks) with raw HTML
escaped as GitHub does, a small style sheet close to GitHub's, and
headless Chromium (`chromium`, Debian's package) for the picture. The
recipe that made the checked-in screenshot is reports/DIFF-SCREENSHOT.md.
"""
import html
import os
import subprocess
import sys
import tempfile

import cmarkgfm
from cmarkgfm.cmark import Options

STYLE = """
body { font: 14px/1.5 -apple-system, 'Segoe UI', 'Noto Sans', Helvetica, Arial, sans-serif;
       color: #1f2328; background: #fff; margin: 0; padding: 16px; }
.comment { border: 1px solid #d1d9e0; border-radius: 6px; max-width: 860px; }
.head { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; padding: 8px 16px;
        color: #59636e; border-radius: 6px 6px 0 0; }
.body { padding: 16px; }
h2 { font-size: 1.5em; border-bottom: 1px solid #d1d9e0; padding-bottom: .3em; margin-top: 0; }
table { border-collapse: collapse; margin: 0 0 16px; }
th, td { border: 1px solid #d1d9e0; padding: 6px 13px; }
tr:nth-child(2n) { background: #f6f8fa; }
th { font-weight: 600; }
code { font: 85% ui-monospace, SFMono-Regular, Menlo, monospace;
       background: rgba(129,139,152,.12); padding: .2em .4em; border-radius: 6px; }
ul { padding-left: 2em; }
"""


def main():
    src, png = sys.argv[1:3]
    md = open(src, encoding="utf-8").read()
    body = cmarkgfm.github_flavored_markdown_to_html(md, options=Options.CMARK_OPT_DEFAULT)
    page = (
        "<!doctype html><meta charset=utf-8><style>" + STYLE + "</style>"
        "<div class=comment><div class=head><b>nightly-audit</b> commented</div>"
        "<div class=body>" + body + "</div></div>"
    )
    with tempfile.TemporaryDirectory() as tmp:
        page_path = os.path.join(tmp, "diff.html")
        with open(page_path, "w", encoding="utf-8") as f:
            f.write(page)
        subprocess.run(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--window-size=900,700", "--screenshot=" + os.path.abspath(png),
             "file://" + page_path],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
    print(f"{png}: {html.escape(src)} rendered")


if __name__ == "__main__":
    main()
