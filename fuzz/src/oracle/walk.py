# gdb script of dwarfsmith-fuzz's oracle (fuzz/src/oracle): stop on every
# source line that has an is_stmt row inside the given functions (inlined
# copies included), a bounded number of times, and print every
# visible scalar local and parameter at each stop.
#
# Environment: WALK_FUNCTIONS (comma-separated function names; the first
# defined names the source file whose line table is walked, unless
# WALK_FILE gives that file's base name), WALK_MAX_HITS (stops
# per line; per address with WALK_EVERY_ROW), WALK_MAX_STOPS (the walk ends after that many
# stops), WALK_EVERY_ROW (1: a breakpoint on every is_stmt row's address of
# each line, not only where `break FILE:LINE` puts them, so that the
# oracle sees every value a variable holds on a line, e.g. a `for` line's
# condition and increment; a function's entry address is left out: its
# first line stops after the prologue, as `break` does), WALK_LINES
# (comma-separated: only these lines get breakpoints; all when empty).
# Output, one row per line, tab-separated:
#   LINES <line> <line> ...                  the lines given breakpoints
#   STOP  <frame depth> <function> <line> break|row|next|inside   at each
#         stop (`row`: an address only WALK_EVERY_ROW added; `next`: the
#         stop after a WALK_LINES stop; `inside`: within a WALK_LINES line,
#         where a value changed)
#   VAR   <name> arg|local <decl line> <value>   each scalar in scope
#   CAPPED <function> <line>                 (WALK_EVERY_ROW) after a stop
#         whose address the bound then disabled: later executions of the
#         line go unseen
#   END   exited|limit|error <detail>        when the walk ends
# A value is gdb's rendering of an integer, character, boolean, enum or
# float; a pointer is `NULL`, `&symbol` or `&symbol+offset` when gdb names
# what it points to, else `<pointer>`; `<optimized out>` and
# `<error: ...>` as gdb says; an integer or pointer of 2-8 bytes that are
# all 0xFE or all 0xAA (-ftrivial-auto-var-init=pattern of gcc or clang: not
# assigned yet) is `<unassigned>`.
import gdb
import os
import re

functions = [f for f in os.environ["WALK_FUNCTIONS"].split(",") if f]
max_hits = int(os.environ.get("WALK_MAX_HITS", "5"))
max_stops = int(os.environ.get("WALK_MAX_STOPS", "5000"))
every_row = os.environ.get("WALK_EVERY_ROW") == "1"
only_lines = {int(l) for l in os.environ.get("WALK_LINES", "").split(",") if l}
source_file = os.environ.get("WALK_FILE", "")
gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("set width 0")
# A stop on an inlined call's first instruction is made in the inlined
# function, as `break FILE:LINE` makes it (gdb puts an address breakpoint's
# stop in the caller there): otherwise one build's stops on an inlined
# function's lines would count as its caller's and never be judged.
# Breakpoints stay in the program between stops: gdb otherwise takes every
# one out and puts it back at each stop, which costs more than the stop.
gdb.execute("set breakpoint always-inserted on")
gdb.execute("set print frame-arguments none")


def symbol_of(name):
    return gdb.lookup_global_symbol(name) or gdb.lookup_static_symbol(name)


def enclosing_functions(pc):
    """Names of the function and every inlined function at pc."""
    names = set()
    try:
        block = gdb.block_for_pc(pc)
    except RuntimeError:
        return names
    while block is not None:
        if block.function is not None:
            names.add(block.function.name)
        block = block.superblock
    return names


SCALARS = (
    gdb.TYPE_CODE_INT,
    gdb.TYPE_CODE_CHAR,
    gdb.TYPE_CODE_BOOL,
    gdb.TYPE_CODE_ENUM,
    gdb.TYPE_CODE_FLT,
    gdb.TYPE_CODE_PTR,
)
POINTER_SYMBOL = re.compile(r"<([A-Za-z_][A-Za-z_0-9.]*)(\+\d+)?>")


def render(value):
    try:
        if value.is_optimized_out:
            return "<optimized out>"
        type = value.type.strip_typedefs()
        code = type.code
        if code in (gdb.TYPE_CODE_INT, gdb.TYPE_CODE_CHAR, gdb.TYPE_CODE_PTR) and 1 < type.sizeof <= 8:
            mask = (1 << (8 * type.sizeof)) - 1
            if int(value) & mask in (int(fill * type.sizeof, 16) for fill in ("fe", "aa")):
                return "<unassigned>"
        if code == gdb.TYPE_CODE_PTR:
            if int(value) == 0:
                return "NULL"
            named = POINTER_SYMBOL.search(value.format_string(symbols=True))
            if named:
                return "&" + named.group(1) + (named.group(2) or "")
            return "<pointer>"
        return " ".join(value.format_string(symbols=False).split())
    except (gdb.error, gdb.MemoryError) as e:
        return "<error: " + " ".join(str(e).split()) + ">"


def scalars_in_scope(frame):
    out = {}
    try:
        block = frame.block()
    except RuntimeError:
        return out
    while block is not None:
        for sym in block:
            if not (sym.is_argument or sym.is_variable) or sym.name in out:
                continue
            if sym.type is None or sym.type.strip_typedefs().code not in SCALARS:
                if sym.name not in out:
                    out[sym.name] = None
                continue
            try:
                value = render(sym.value(frame))
            except (gdb.error, gdb.MemoryError) as e:
                value = "<error: " + " ".join(str(e).split()) + ">"
            kind = "arg" if sym.is_argument else "local"
            out[sym.name] = (kind, sym.line, value)
        if block.function is not None:
            break
        block = block.superblock
    return out


def innermost_function(pc):
    """The function (or inlined function) whose code is at pc."""
    try:
        block = gdb.block_for_pc(pc)
    except RuntimeError:
        return None
    while block is not None and block.function is None:
        block = block.superblock
    return None if block is None else block.function


def enter_inlined_calls(frame):
    """The frame of the innermost inlined call at frame's pc. gdb stops at an
    address breakpoint on an inlined call's first instruction in the caller
    (the inlined frames are "skipped"), where `break FILE:LINE` would stop in
    the callee; `step` then enters one inlined frame without running."""
    for _ in range(32):
        inner = innermost_function(frame.pc())
        if inner is None or frame.function() is None or inner.name == frame.function().name:
            return frame
        pc = frame.pc()
        gdb.execute("step", to_string=True)
        stepped = gdb.selected_frame()
        if stepped.pc() != pc:
            return stepped
        frame = stepped
    return frame


def depth(frame):
    d = 0
    while frame is not None:
        d += 1
        frame = frame.older()
    return d


# Everything is looked up at the program's first instruction: the
# executable is mapped where it runs (a position-independent one too) and
# the shared libraries are not loaded yet, whose symbols would make each
# line lookup cost more than the whole walk.
try:
    gdb.execute("starti", to_string=True)
except gdb.error as e:
    print("END\terror\t" + " ".join(str(e).split()), flush=True)
    raise SystemExit
wanted = set(functions)
anchor = next(
    (
        s
        for s in map(symbol_of, functions)
        if s is not None
        and (not source_file or os.path.basename(s.symtab.filename) == source_file)
    ),
    None,
)
if anchor is None:
    print("END\terror\tnone of the functions is defined in the file", flush=True)
    raise SystemExit
symtab = anchor.symtab
lines = set()
rows = set()
for entry in symtab.linetable():
    if entry.line > 0 and getattr(entry, "is_stmt", True):
        if (not only_lines or entry.line in only_lines) and enclosing_functions(entry.pc) & wanted:
            lines.add(entry.line)
            rows.add(entry.pc)
lines = sorted(lines)
print("LINES\t" + " ".join(map(str, lines)), flush=True)
# Each line's addresses are where `break FILE:LINE` puts them (after the
# prologue on a function's first line); breakpoints on addresses are not
# looked up again when a library loads.
breaks = {}
for line in lines:
    try:
        probe = gdb.Breakpoint(f"{symtab.filename}:{line}", internal=True)
    except gdb.error:
        continue
    breaks.update((location.address, line) for location in probe.locations)
    probe.delete()
addresses = set(breaks)
if every_row:
    for pc in rows:
        block = gdb.block_for_pc(pc)
        while block is not None and block.function is None:
            block = block.superblock
        if block is None or block.start != pc:
            addresses.add(pc)
breakpoints = {pc: gdb.Breakpoint(f"*{pc:#x}", internal=True) for pc in sorted(addresses)}
# Without WALK_EVERY_ROW the bound is per line: a line's breakpoints are
# disabled together after WALK_MAX_HITS stops on it (its first executions,
# however many copies of it the code holds); with it, per address.
by_line = {}
for pc, line in breaks.items():
    by_line.setdefault(line, []).append(breakpoints[pc])
line_hits = {}
try:
    gdb.execute("continue", to_string=True)
except gdb.error as e:
    print("END\terror\t" + " ".join(str(e).split()), flush=True)
    raise SystemExit

stops = 0
# With WALK_LINES each breakpoint stop is followed by a `next` (a stop of
# kind `next`): what the frame holds at its next line, which the line may
# have computed. The first INSIDE_HITS stops at each address also step
# through the rest of the line an instruction at a time (over calls), a
# stop of kind `inside` wherever a value changed: a line with a loop in
# it (zlib's NEEDBITS) holds values its start never shows.
INSIDE_HITS = 10
INSIDE_STEPS = 400
inside_hits = {}


def print_stop(frame, kind):
    fn = frame.function()
    rows = [f"STOP\t{depth(frame)}\t{fn.name if fn else '?'}\t{frame.find_sal().line}\t{kind}"]
    shown_values = scalars_in_scope(frame)
    for name, shown in shown_values.items():
        if shown is not None:
            kind_of, decl_line, value = shown
            rows.append(f"VAR\t{name}\t{kind_of}\t{decl_line}\t{value}")
    print("\n".join(rows), flush=True)
    return shown_values


def step_through_line(frame, shown):
    """Steps over the rest of frame's line; True when still on it."""
    line, frame_depth = frame.find_sal().line, depth(frame)
    last = shown
    for _ in range(INSIDE_STEPS):
        gdb.execute("nexti", to_string=True)
        now = gdb.selected_frame()
        if now.find_sal().line != line or depth(now) != frame_depth:
            return False
        values = scalars_in_scope(now)
        if values != last:
            print_stop(now, "inside")
            last = values
    return True


stepped = False
still_on_line = True
while True:
    try:
        frame = enter_inlined_calls(gdb.selected_frame())
    except gdb.error:
        print("END\texited\t", flush=True)
        break
    if stops >= max_stops:
        print("END\tlimit\t" + str(stops), flush=True)
        break
    stops += 1
    fn = frame.function()
    line = frame.find_sal().line
    pc = frame.pc()
    kind = "next" if stepped else "break" if pc in breaks else "row"
    shown = print_stop(frame, kind)
    if stepped:
        pass
    elif every_row:
        bp = breakpoints.get(pc)
        if bp is not None and bp.hit_count >= max_hits:
            bp.enabled = False
            print(f"CAPPED\t{fn.name if fn else '?'}\t{line}", flush=True)
    elif pc in breaks:
        stopped_line = breaks[pc]
        line_hits[stopped_line] = line_hits.get(stopped_line, 0) + 1
        if line_hits[stopped_line] >= max_hits:
            for bp in by_line[stopped_line]:
                bp.enabled = False
    stepped = bool(only_lines) and not stepped
    try:
        still_on_line = True
        if stepped and inside_hits.get(pc, 0) < INSIDE_HITS:
            inside_hits[pc] = inside_hits.get(pc, 0) + 1
            still_on_line = step_through_line(frame, shown)
        if still_on_line:
            gdb.execute("next" if stepped else "continue", to_string=True)
    except gdb.error:
        print("END\texited\t", flush=True)
        break
