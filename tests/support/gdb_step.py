# gdb script: for each function named in STEP_FUNCTIONS (comma-separated),
# stop at its first call and step with `next` until it returns, printing
# one line `STEP<TAB>function<TAB>line` per stop (stops of a later call
# of the function, which `next` may run into, are not printed).
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
    # The return address names this call: `next` out of the call may run
    # into the next call of the same function on the same source line.
    home = frame.older().pc() if frame.older() is not None else None
    # Other functions' breakpoints must not interrupt `next`.
    for other in breakpoints.values():
        other.enabled = False
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
        if d != depth or (frame.older() is not None and frame.older().pc() != home):
            break
        print(f"STEP\t{name}\t{frame.find_sal().line}")
        try:
            gdb.execute("next", to_string=True)
        except gdb.error:
            break
    if not breakpoints:
        break
    for other in breakpoints.values():
        other.enabled = True
    try:
        gdb.execute("continue", to_string=True)
    except gdb.error:
        break
