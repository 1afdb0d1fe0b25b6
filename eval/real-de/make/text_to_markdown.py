"""Turn a chapter of the Debian Reference's text version into a Markdown book chapter.

Usage: python text_to_markdown.py < chapter.txt > chapter.md
Section numbers ("8.1.2. Title") become headings, bullets become list items, indented
command examples become code blocks, ASCII tables are kept as code blocks.
"""
import re
import sys

lines = sys.stdin.read().splitlines()
out, in_code = [], False
for raw in lines:
    line = raw.replace("\u00a0", " ")  # the text version indents commands with no-break spaces
    chapter = re.match(r"^Kapitel (\d+)\. (.+)$", line)
    section = re.match(r"^(\d+(?:\.\d+)+)\. (\S.*)$", line)
    if chapter:
        out.append(f"# Kapitel {chapter.group(1)}. {chapter.group(2)}")
        continue
    if section and not in_code:
        level = "#" * min(section.group(1).count(".") + 1, 4)
        out.append(f"{level} {section.group(1)}. {section.group(2)}")
        continue
    code = raw.startswith("\u00a0 \u00a0 ") or line.startswith("    ") and line.strip().startswith(("$ ", "# ", "+-", "|"))
    if code and not in_code:
        out.append("```")
        in_code = True
    elif in_code and not code:
        out.append("```")
        in_code = False
    if in_code:
        out.append(line[4:])
        continue
    bullet = re.match(r"^\s*[•·]\s+(.*)$", line)
    out.append(f"- {bullet.group(1)}" if bullet else line.strip())
if in_code:
    out.append("```")
print(re.sub(r"\n{3,}", "\n\n", "\n".join(out)))
