# gdb script: stop on every source line of one C file that has an is_stmt
# row (including lines of inlined code), and print every variable in scope at
# each stop: a line `STOP<TAB>function<TAB>line`, then one line per variable
# `VAR<TAB>name<TAB>arg|local<TAB>declaration line<TAB>rendered value`.
# Usage: WALK_FUNCTION=f WALK_MAX_HITS=N gdb -nx -batch -x gdb_walk.py EXE
#   WALK_FUNCTION names any function of the file, to find its line table.
import gdb
import os

anchor = os.environ["WALK_FUNCTION"]
max_hits = int(os.environ.get("WALK_MAX_HITS", "20"))
gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("set print address off")

symbol = gdb.lookup_global_symbol(anchor) or gdb.lookup_static_symbol(anchor)
symtab = symbol.symtab
lines = sorted({e.line for e in symtab.linetable() if e.line > 0 and getattr(e, "is_stmt", True)})
breakpoints = [gdb.Breakpoint(f"{symtab.filename}:{line}", internal=True) for line in lines]


def render(value):
    """The value as a string; a pointer is shown as what it points to."""
    try:
        if value.is_optimized_out:
            return "<optimized out>"
        code = value.type.strip_typedefs().code
        if code == gdb.TYPE_CODE_PTR:
            if int(value) == 0:
                return "NULL"
            target = value.type.strip_typedefs().target().strip_typedefs()
            if target.code == gdb.TYPE_CODE_VOID:
                return "<void pointer>"
            return "-> " + render(value.dereference())
        return value.format_string(address=False, symbols=False)
    except gdb.error as e:
        return f"<error: {e}>"
    except gdb.MemoryError as e:
        return f"<error: {e}>"


def scope_variables(frame):
    out = {}
    try:
        block = frame.block()
    except RuntimeError:
        return out
    while block is not None:
        for sym in block:
            if (sym.is_argument or sym.is_variable) and sym.name not in out:
                try:
                    value = render(sym.value(frame))
                except gdb.error as e:
                    value = f"<error: {e}>"
                kind = "arg" if sym.is_argument else "local"
                out[sym.name] = (kind, sym.line, " ".join(value.split()))
        if block.function is not None:
            break
        block = block.superblock
    return out


gdb.execute("run", to_string=True)
while True:
    try:
        frame = gdb.selected_frame()
    except gdb.error:
        break
    fn = frame.function()
    print(f"STOP\t{fn.name if fn else '?'}\t{frame.find_sal().line}", flush=True)
    for name, (kind, decl_line, value) in scope_variables(frame).items():
        print(f"VAR\t{name}\t{kind}\t{decl_line}\t{value}", flush=True)
    for bp in breakpoints:
        if bp.enabled and bp.hit_count >= max_hits:
            bp.enabled = False
    try:
        gdb.execute("continue", to_string=True)
    except gdb.error:
        break
