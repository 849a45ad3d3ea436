# gdb script: for each function named in STEP_FUNCTIONS (comma-separated),
# stop at its first call and step with `next` until it returns, printing
# one line `STEP<TAB>function<TAB>line` per stop.
# Usage: STEP_FUNCTIONS=f,g STEP_MAX=N gdb -nx -batch -x gdb_step.py EXE
import gdb
import os

functions = [f for f in os.environ["STEP_FUNCTIONS"].split(",") if f]
max_steps = int(os.environ.get("STEP_MAX", "200"))
gdb.execute("set pagination off")
gdb.execute("set confirm off")
breakpoints = {f: gdb.Breakpoint(f, internal=True) for f in functions}
gdb.execute("run", to_string=True)
while True:
    try:
        frame = gdb.selected_frame()
    except gdb.error:
        break
    name = frame.name()
    if name not in breakpoints:
        try:
            gdb.execute("continue", to_string=True)
        except gdb.error:
            break
        continue
    breakpoints.pop(name).delete()
    depth = 0
    f = frame
    while f is not None:
        depth += 1
        f = f.older()
    for _ in range(max_steps):
        try:
            frame = gdb.selected_frame()
        except gdb.error:
            break
        if frame.name() != name:
            break
        d = 0
        f = frame
        while f is not None:
            d += 1
            f = f.older()
        if d != depth:
            break
        print(f"STEP\t{name}\t{frame.find_sal().line}")
        try:
            gdb.execute("next", to_string=True)
        except gdb.error:
            break
    if not breakpoints:
        break
    try:
        gdb.execute("continue", to_string=True)
    except gdb.error:
        break
