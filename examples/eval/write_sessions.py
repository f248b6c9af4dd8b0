#!/usr/bin/env python3
"""Writes the evaluation sessions typescript-npm.jsonl and python-pytest.jsonl (deterministic;
run from this directory).

Each is a linear pi v3 session of the shape real sessions have and summaries get wrong: a
slash command, a pinned instruction, user constraints and preferences in passing, an assistant proposal the user
rejects and that is reverted, a turn the user aborts (one tool call never gets a result),
renames and deletions through bash, failing then passing tests, errors the user pastes into
a message, read-only greps (one finding nothing), and a failure still open at the end.
"""

import hashlib
import json


class Session:
    def __init__(self, name, cwd, model):
        self.name = name
        self.model = model
        self.count = 0
        self.calls = 0
        self.parent = None
        self.tokens = 2000
        self.lines = [{"type": "session", "version": 3, "id": f"eval-{name}",
                       "timestamp": "2026-05-04T09:00:00.000Z", "cwd": cwd}]
        self.add("model_change", provider="anthropic", modelId=model)

    def add(self, entry_type, **fields):
        self.count += 1
        entry_id = hashlib.sha1(f"{self.name}/{self.count}".encode()).hexdigest()[:8]
        seconds = self.count * 9
        entry = {"type": entry_type, "id": entry_id, "parentId": self.parent,
                 "timestamp": f"2026-05-04T{9 + seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}.000Z"}
        entry.update(fields)
        self.lines.append(entry)
        self.parent = entry_id
        return entry_id

    def ms(self):
        return 1777885200000 + self.count * 9000

    def user(self, text):
        self.add("message", message={"role": "user", "content": [{"type": "text", "text": text}],
                                     "timestamp": self.ms()})

    def assistant(self, text=None, calls=(), stop=None, error=None, thinking=None):
        content = []
        ids = []
        if thinking:
            content.append({"type": "thinking", "thinking": thinking})
        if text:
            content.append({"type": "text", "text": text})
        for name, args in calls:
            self.calls += 1
            call_id = f"toolu_{self.name[:2]}{self.calls:03d}"
            ids.append(call_id)
            content.append({"type": "toolCall", "id": call_id, "name": name, "arguments": args})
        self.tokens += 900
        message = {"role": "assistant", "content": content, "api": "anthropic-messages",
                   "provider": "anthropic", "model": self.model,
                   "usage": {"input": self.tokens, "output": 150, "cacheRead": 0, "cacheWrite": 0,
                             "totalTokens": self.tokens + 150,
                             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0,
                                      "total": 0}},
                   "stopReason": stop or ("toolUse" if calls else "stop"), "timestamp": self.ms()}
        if error:
            message["errorMessage"] = error
        self.add("message", message=message)
        return ids

    def result(self, call_id, name, text, is_error=False):
        self.add("message", message={"role": "toolResult", "toolCallId": call_id, "toolName": name,
                                     "content": [{"type": "text", "text": text}],
                                     "isError": is_error, "timestamp": self.ms()})

    def bash_execution(self, command, output, exit_code=0):
        """A command the user ran with pi's `!` prefix."""
        self.add("message", message={"role": "bashExecution", "command": command, "output": output,
                                     "exitCode": exit_code, "cancelled": False, "truncated": False,
                                     "timestamp": self.ms()})

    def compaction(self, summary, first_kept_entry_id, read_files=(), modified_files=()):
        """A compaction entry as pi writes it: the summary with its file lists appended."""
        lists = []
        if read_files:
            lists.append("<read-files>\n" + "\n".join(read_files) + "\n</read-files>")
        if modified_files:
            lists.append("<modified-files>\n" + "\n".join(modified_files) + "\n</modified-files>")
        if lists:
            summary = summary + "\n\n" + "\n\n".join(lists)
        self.add("compaction", summary=summary, firstKeptEntryId=first_kept_entry_id,
                 tokensBefore=self.tokens, details={"readFiles": list(read_files),
                                                    "modifiedFiles": list(modified_files)},
                 fromHook=False)

    def tool(self, text, name, args, output, is_error=False):
        """One assistant message with one call, and its result."""
        [call_id] = self.assistant(text, [(name, args)])
        self.result(call_id, name, output, is_error)

    def write(self, path):
        with open(path, "w", encoding="utf-8") as out:
            for line in self.lines:
                out.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")


def typescript():
    s = Session("typescript-npm", "/home/dev/palette-studio", "claude-sonnet-4-5")
    s.user("/mode")
    s.assistant("Mode switched to default.")
    # `compaction pin --text …`: an instruction that reaches the model after every compaction.
    s.add("custom", customType="compaction.pin",
          data={"text": "Run npm test before saying a task is done, and paste the summary line."})
    s.user("The JSON export of palettes is broken: exported colors come out as palette indices "
           "instead of colors. Fix `exportPalette` in src/export/palette.ts. Use rgb values, no "
           "indices. And no console logs in the final code, please.")
    s.tool("Let me read the exporter and the types first.", "read",
           {"path": "src/export/palette.ts"},
           "import { Palette, ExportedColor } from '../types';\n\n"
           "export function exportPalette(palette: Palette): string {\n"
           "  const colors: ExportedColor[] = palette.colors.map((color, index) => ({ index, name: color.name }));\n"
           "  console.log('exporting', colors.length);\n"
           "  return JSON.stringify({ version: 1, colors });\n}\n")
    s.tool(None, "read", {"path": "src/types.ts"},
           "export interface Color { name: string; r: number; g: number; b: number }\n"
           "export interface Palette { name: string; colors: Color[] }\n"
           "export interface ExportedColor { index: number; name: string }\n")
    s.tool("The exporter maps each color to its index. I'll export `rgb` triples instead and drop "
           "the console.log.", "edit",
           {"path": "src/export/palette.ts",
            "oldText": "({ index, name: color.name })",
            "newText": "({ name: color.name, rgb: [color.r, color.g, color.b] })"},
           "Successfully replaced text in src/export/palette.ts.")
    s.tool(None, "bash", {"command": "npm test"},
           "> palette-studio@0.4.2 test\n> tsc --noEmit && vitest run\n\n"
           "src/export/palette.ts(4,75): error TS2353: Object literal may only specify known "
           "properties, and 'rgb' does not exist in type 'ExportedColor'.\n"
           "npm ERR! Lifecycle script `test` failed with error:\n"
           "npm ERR! Error: command failed\n\nCommand exited with code 1", True)
    s.tool("`ExportedColor` still describes the old shape. I'll change it to carry `rgb`.", "edit",
           {"path": "src/types.ts",
            "oldText": "export interface ExportedColor { index: number; name: string }",
            "newText": "export interface ExportedColor { name: string; rgb: [number, number, number] }"},
           "Successfully replaced text in src/types.ts.")
    s.tool(None, "bash", {"command": "npm test"},
           "> palette-studio@0.4.2 test\n> tsc --noEmit && vitest run\n\n"
           " ✓ tests/export.test.ts (6 tests) 12ms\n ✓ tests/import.test.ts (8 tests) 15ms\n\n"
           " Test Files  2 passed (2)\n      Tests  14 passed (14)\n")
    s.assistant("The export now writes `rgb` triples and no indices; all 14 tests pass.")

    s.user("Palettes also load slowly when they have thousands of colors. Can you speed up "
           "loading?")
    s.tool("Let me look at the loader.", "read", {"path": "src/store/loadPalette.ts"},
           "export function loadPalette(text: string): Palette {\n"
           "  const data = JSON.parse(text);\n"
           "  return { name: data.name, colors: data.colors.filter((c, i) => data.colors.indexOf(c) === i) };\n}\n")
    s.tool("The duplicate filter is quadratic. I'll switch the palette storage to a `Map` keyed "
           "by color name and bump the file format to version 2 so the map is stored directly.",
           "edit", {"path": "src/store/loadPalette.ts",
                    "oldText": "colors: data.colors.filter((c, i) => data.colors.indexOf(c) === i)",
                    "newText": "colors: new Map(data.colors.map((c) => [c.name, c])), version: 2"},
           "Successfully replaced text in src/store/loadPalette.ts.")
    s.user("wait, that doesn't look right. Never change the file format: older versions of the "
           "app must still open these files. Keep the array.")
    s.tool("Understood. I'll revert the Map change and keep the version 1 array format, and make "
           "the duplicate check linear with a Set instead.", "edit",
           {"path": "src/store/loadPalette.ts",
            "oldText": "colors: new Map(data.colors.map((c) => [c.name, c])), version: 2",
            "newText": "colors: dedupeByName(data.colors)"},
           "Successfully replaced text in src/store/loadPalette.ts.")
    s.tool(None, "edit", {"path": "src/store/dedupe.ts", "oldText": "export {};",
                          "newText": "export function dedupeByName(colors) {\n  const seen = new Set();\n  return colors.filter((c) => !seen.has(c.name) && seen.add(c.name));\n}"},
           "Successfully replaced text in src/store/dedupe.ts.")
    s.tool(None, "bash", {"command": "npm test"},
           " ✓ tests/export.test.ts (6 tests) 11ms\n ✓ tests/import.test.ts (8 tests) 14ms\n\n"
           " Test Files  2 passed (2)\n      Tests  14 passed (14)\n")
    s.assistant("Loading is linear now (a Set of seen names) and the file format is unchanged.")

    s.user("Run the linter over everything.")
    s.assistant("Running eslint.", [("bash", {"command": "npx eslint . --max-warnings 0"})])
    s.assistant(None, stop="aborted", error="Request was aborted")
    s.user("Sorry, skip that for now. Rename src/export/palette.ts to "
           "src/export/paletteExport.ts and update the imports.")
    s.tool(None, "bash", {"command": "git mv src/export/palette.ts src/export/paletteExport.ts"}, "")
    s.tool(None, "bash", {"command": "grep -rn \"export/palette'\" src"},
           "src/index.ts:2:import { exportPalette } from './export/palette';\n")
    s.tool(None, "edit", {"path": "src/index.ts",
                          "oldText": "from './export/palette'",
                          "newText": "from './export/paletteExport'"},
           "Successfully replaced text in src/index.ts.")
    s.tool(None, "bash", {"command": "npx tsc --noEmit"},
           "src/ui/ExportButton.tsx(3,31): error TS2307: Cannot find module '../export/palette' "
           "or its corresponding type declarations.\n\nCommand exited with code 2", True)
    s.tool("One more import in the export button.", "edit",
           {"path": "src/ui/ExportButton.tsx", "oldText": "from '../export/palette'",
            "newText": "from '../export/paletteExport'"},
           "Successfully replaced text in src/ui/ExportButton.tsx.")
    s.tool(None, "bash", {"command": "npx tsc --noEmit"}, "")
    s.assistant("Renamed to `src/export/paletteExport.ts`; both imports are updated and tsc is "
                "clean.")

    s.user("When I click Export in the browser I get this:\n\n"
           "No palette loaded yet, using defaults.\n"
           "Uncaught TypeError: Cannot read properties of undefined (reading 'map')\n"
           "    at exportPalette (paletteExport.ts:4:39)\n"
           "    at HTMLButtonElement.onClick (ExportButton.tsx:12:5)\n\n"
           "This needs to be fully clean before I ship it.")
    s.tool("The button exports before a palette is loaded, so `palette.colors` is undefined. "
           "The fix is to treat a missing color list as empty.", "edit",
           {"path": "src/export/paletteExport.ts", "oldText": "palette.colors.map(",
            "newText": "(palette.colors ?? []).map("},
           "Successfully replaced text in src/export/paletteExport.ts.")
    s.tool(None, "edit", {"path": "tests/export.test.ts", "oldText": "describe('exportPalette', () => {",
                          "newText": "describe('exportPalette', () => {\n  it('handles a palette without colors', () => {\n    expect(exportPalette({ name: 'x' } as Palette)).toBe('{\"version\":1,\"colors\":[]}');\n  });"},
           "Successfully replaced text in tests/export.test.ts.")
    s.tool(None, "bash", {"command": "npm test"},
           " FAIL  tests/export.test.ts > exportPalette > handles a palette without colors\n"
           "AssertionError: expected '{\"version\":1,\"colors\":[],\"name\":\"x\"}' to be '{\"version\":1,\"colors\":[]}'\n"
           " ❯ tests/export.test.ts:9:52\n\n Test Files  1 failed | 1 passed (2)\n"
           "      Tests  1 failed | 14 passed (15)\n\nCommand exited with code 1", True)
    s.tool("The test expectation was wrong: the export includes the name. Fixing the test.",
           "edit", {"path": "tests/export.test.ts",
                    "oldText": "toBe('{\"version\":1,\"colors\":[]}')",
                    "newText": "toBe('{\"version\":1,\"colors\":[],\"name\":\"x\"}')"},
           "Successfully replaced text in tests/export.test.ts.")
    s.tool(None, "bash", {"command": "npm test"},
           " ✓ tests/export.test.ts (7 tests) 12ms\n ✓ tests/import.test.ts (8 tests) 15ms\n\n"
           " Test Files  2 passed (2)\n      Tests  15 passed (15)\n")
    s.assistant("Export works without a loaded palette now, with a regression test; 15 tests pass.")

    s.user("Also delete the old src/legacy/colorIndex.ts, nothing uses it anymore.")
    s.tool(None, "bash", {"command": "rg -n colorIndex src"},
           "src/legacy/colorIndex.ts:1:export const colorIndex = new Map<string, number>();\n")
    s.tool(None, "bash", {"command": "rm src/legacy/colorIndex.ts"}, "")
    s.tool(None, "bash", {"command": "rg -n colorIndex src tests"}, "\n\nCommand exited with code 1", True)
    s.tool(None, "bash", {"command": "npm run build"},
           "> palette-studio@0.4.2 build\n> tsc -p tsconfig.json\n\n"
           "error TS6053: File '/home/dev/palette-studio/src/legacy/colorIndex.ts' not found.\n"
           "  The file is in the program because:\n    Part of 'files' list in tsconfig.json\n"
           "npm ERR! code ENOENT\nnpm ERR! Lifecycle script `build` failed\n\nCommand exited with code 2",
           True)
    s.tool("tsconfig.json still lists the deleted file. Removing it from `files`.", "edit",
           {"path": "tsconfig.json", "oldText": "\"src/legacy/colorIndex.ts\", ", "newText": ""},
           "Successfully replaced text in tsconfig.json.")
    s.tool(None, "bash", {"command": "npm run build"},
           "> palette-studio@0.4.2 build\n> tsc -p tsconfig.json\n\n")
    s.assistant("Deleted `src/legacy/colorIndex.ts` and dropped it from tsconfig.json; the build "
                "passes.")

    s.user("Great. Next, add a CSV export next to the JSON one, same rgb values. Keep the column "
           "order r,g,b,name.")
    s.tool("I'll add `exportPaletteCsv` in src/export/csv.ts with a test.", "write",
           {"path": "src/export/csv.ts",
            "content": "export function exportPaletteCsv(palette: Palette): string {\n  return (palette.colors ?? []).map((c) => [c.name, c.r, c.g, c.b].join(',')).join('\\n');\n}\n"},
           "Successfully wrote 161 bytes to src/export/csv.ts")
    s.tool(None, "write", {"path": "tests/csv.test.ts",
                           "content": "it('orders columns r,g,b,name', () => {\n  expect(exportPaletteCsv(red)).toBe('255,0,0,red');\n});\n"},
           "Successfully wrote 112 bytes to tests/csv.test.ts")
    s.tool(None, "bash", {"command": "npm test"},
           " FAIL  tests/csv.test.ts > orders columns r,g,b,name\n"
           "AssertionError: expected 'red,255,0,0' to be '255,0,0,red'\n"
           " ❯ tests/csv.test.ts:2:33\n\n Test Files  1 failed | 2 passed (3)\n"
           "      Tests  1 failed | 15 passed (16)\n\nCommand exited with code 1", True)
    s.assistant("The CSV columns come out as name first. Next, I'll reorder the join in "
                "`exportPaletteCsv` to r,g,b,name and rerun the tests.")
    return s


def python():
    s = Session("python-pytest", "/home/dev/ledger", "claude-opus-4-1")
    s.user("The CSV importer in ledger/importers/csv_import.py crashes on bank exports that "
           "start with a BOM. Fix it. Use pytest for the tests, not unittest. Don't add new "
           "dependencies.")
    s.tool("Let me reproduce it first.", "bash", {"command": "python -m pytest tests/test_csv_import.py -q"},
           "F...........\n"
           "=================================== FAILURES ===================================\n"
           "________________________________ test_bom_header _______________________________\n"
           "Traceback (most recent call last):\n"
           "  File \"/home/dev/ledger/ledger/importers/csv_import.py\", line 27, in parse_header\n"
           "    return [COLUMNS[name] for name in header]\n"
           "KeyError: '\\ufeffdate'\n"
           "FAILED tests/test_csv_import.py::test_bom_header - KeyError: '\\ufeffdate'\n"
           "1 failed, 11 passed in 0.42s\n\nCommand exited with code 1", True)
    s.tool(None, "read", {"path": "ledger/importers/csv_import.py"},
           "import csv\nfrom decimal import Decimal\n\nCOLUMNS = {'date': 'date', 'amount': 'amount', 'payee': 'payee'}\n\n"
           "def read_rows(path):\n    with open(path, encoding='utf-8', newline='') as handle:\n"
           "        reader = csv.reader(handle)\n        header = parse_header(next(reader))\n")
    s.tool("The file is opened as plain utf-8, so the BOM stays on the first header. The fix is "
           "to open it with the utf-8-sig codec, which strips a BOM.", "edit",
           {"path": "ledger/importers/csv_import.py", "oldText": "encoding='utf-8'",
            "newText": "encoding='utf-8-sig'"},
           "Successfully replaced text in ledger/importers/csv_import.py.")
    s.tool(None, "bash", {"command": "python -m pytest tests/test_csv_import.py -q"},
           "............\n12 passed in 0.40s\n")
    s.assistant("BOM files import now: the reader opens them with `utf-8-sig`. 12 tests pass.")

    s.user("Move the importers into a package ledger/io/, importers is a bad name. Keep git "
           "history.")
    s.tool(None, "bash", {"command": "git mv ledger/importers ledger/io"}, "")
    s.tool(None, "bash", {"command": "grep -rn 'ledger.importers' --include=*.py ."},
           "./ledger/cli.py:3:from ledger.importers.csv_import import read_rows\n"
           "./tests/test_csv_import.py:1:from ledger.importers.csv_import import read_rows, parse_header\n")
    s.tool(None, "edit", {"path": "ledger/cli.py", "oldText": "from ledger.importers.csv_import",
                          "newText": "from ledger.io.csv_import"},
           "Successfully replaced text in ledger/cli.py.")
    s.tool(None, "bash", {"command": "python -m pytest -q"},
           "==================================== ERRORS ====================================\n"
           "__________________ ERROR collecting tests/test_csv_import.py ___________________\n"
           "ImportError while importing test module '/home/dev/ledger/tests/test_csv_import.py'.\n"
           "tests/test_csv_import.py:1: in <module>\n"
           "    from ledger.importers.csv_import import read_rows, parse_header\n"
           "E   ModuleNotFoundError: No module named 'ledger.importers'\n"
           "1 error in 0.21s\n\nCommand exited with code 2", True)
    s.tool(None, "edit", {"path": "tests/test_csv_import.py", "oldText": "from ledger.importers.csv_import",
                          "newText": "from ledger.io.csv_import"},
           "Successfully replaced text in tests/test_csv_import.py.")
    s.tool(None, "bash", {"command": "python -m pytest -q"}, "..............\n14 passed in 0.47s\n")
    s.assistant("The importers live in `ledger/io/` now (moved with git mv); imports updated, 14 "
                "tests pass.")

    s.user("Importing a 200k-row export takes forever. Make it faster.")
    s.tool("Parsing row by row in Python is the bottleneck. I'll replace the csv module with "
           "pandas.read_csv, which is much faster, and add pandas to requirements.txt.", "edit",
           {"path": "requirements.txt", "oldText": "python-dateutil==2.9.0",
            "newText": "python-dateutil==2.9.0\npandas==2.2.2"},
           "Successfully replaced text in requirements.txt.")
    s.user("No, that's wrong. We don't add dependencies, I said that. Keep the stdlib csv module "
           "and find the real hot spot.")
    s.tool("Understood, no pandas. I'll revert requirements.txt and profile the stdlib reader.",
           "edit", {"path": "requirements.txt", "oldText": "python-dateutil==2.9.0\npandas==2.2.2",
                    "newText": "python-dateutil==2.9.0"},
           "Successfully replaced text in requirements.txt.")
    s.tool(None, "bash", {"command": "python -m cProfile -s cumtime -m ledger.cli import big.csv | head -8"},
           "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n"
           "   200000    3.912    0.000    9.801    0.000 csv_import.py:31(parse_date)\n"
           "   200000    0.611    0.000    0.902    0.000 csv_import.py:40(read_rows)\n")
    s.tool("`parse_date` calls dateutil's parser for every row. The fix is to try the fixed "
           "`%Y-%m-%d` format with datetime.strptime first and fall back to dateutil.", "edit",
           {"path": "ledger/io/csv_import.py", "oldText": "return dateutil.parser.parse(text).date()",
            "newText": "try:\n        return datetime.strptime(text, '%Y-%m-%d').date()\n    except ValueError:\n        return dateutil.parser.parse(text).date()"},
           "Successfully replaced text in ledger/io/csv_import.py.")
    s.tool(None, "bash", {"command": "python -m pytest -q"}, "..............\n14 passed in 0.45s\n")
    s.assistant("The import is about 8x faster with the strptime fast path; no new dependency.")

    s.user("run mypy on everything")
    s.assistant(None, stop="aborted", error="Request was aborted")
    s.user("The nightly job failed with this:\n\n"
           "Traceback (most recent call last):\n"
           "  File \"/srv/ledger/ledger/io/csv_import.py\", line 44, in read_rows\n"
           "    amount = Decimal(row['amount'])\n"
           "decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>]\n\n"
           "Amounts like 1,234.50 must work. Always keep amounts as Decimal, never float.")
    s.tool("The amount has a thousands separator. I'll strip commas before building the Decimal "
           "and add a test.", "edit",
           {"path": "ledger/io/csv_import.py", "oldText": "amount = Decimal(row['amount'])",
            "newText": "amount = Decimal(row['amount'].replace(',', ''))"},
           "Successfully replaced text in ledger/io/csv_import.py.")
    s.tool(None, "edit", {"path": "tests/test_csv_import.py", "oldText": "def test_bom_header(",
                          "newText": "def test_thousands_separator(tmp_path):\n    assert read_amount('1,234.50') == Decimal('1234.50')\n\n\ndef test_bom_header("},
           "Successfully replaced text in tests/test_csv_import.py.")
    s.tool(None, "bash", {"command": "python -m pytest -q"}, "...............\n15 passed in 0.46s\n")
    s.assistant("Amounts with thousands separators parse as Decimal now; 15 tests pass.")

    s.user("Remove the old scripts/import_legacy.py, nobody uses it.")
    s.tool(None, "bash", {"command": "grep -rn import_legacy --include=*.py ."},
           "./scripts/import_legacy.py:1:# import_legacy: superseded by ledger.io\n")
    s.tool(None, "bash", {"command": "git rm -q scripts/import_legacy.py"}, "")
    s.tool(None, "bash", {"command": "python -m pytest -q"}, "...............\n15 passed in 0.44s\n")
    s.assistant("Removed `scripts/import_legacy.py`; tests still pass.")

    s.user("Now add an OFX importer in ledger/io/ofx_import.py with the same row format. Type "
           "hints everywhere, please.")
    s.tool("I'll write `read_ofx_rows` returning the same `Row` tuples, with tests.", "write",
           {"path": "ledger/io/ofx_import.py",
            "content": "from decimal import Decimal\n\n\ndef read_ofx_rows(path: str) -> list[Row]:\n    ...\n"},
           "Successfully wrote 412 bytes to ledger/io/ofx_import.py")
    s.tool(None, "write", {"path": "tests/test_ofx_import.py",
                           "content": "def test_debit_sign() -> None:\n    assert rows[0].amount == Decimal('-42.10')\n"},
           "Successfully wrote 230 bytes to tests/test_ofx_import.py")
    s.tool(None, "bash", {"command": "python -m pytest -q"},
           "...............F\n"
           "=================================== FAILURES ===================================\n"
           "_______________________________ test_debit_sign ________________________________\n"
           "    def test_debit_sign() -> None:\n"
           ">       assert rows[0].amount == Decimal('-42.10')\n"
           "E       AssertionError: assert Decimal('42.10') == Decimal('-42.10')\n"
           "FAILED tests/test_ofx_import.py::test_debit_sign - AssertionError: assert Decimal('42.10') == Decimal('-42.10')\n"
           "1 failed, 15 passed in 0.51s\n\nCommand exited with code 1", True)
    s.assistant("Debits come out positive: OFX marks them with TRNTYPE DEBIT rather than a sign. "
                "Next, I'll negate the amount when TRNTYPE is DEBIT and rerun pytest.")
    return s


if __name__ == "__main__":
    typescript().write("typescript-npm.jsonl")
    python().write("python-pytest.jsonl")
