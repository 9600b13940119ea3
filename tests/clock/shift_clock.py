# IPython startup file for the "clock moved ahead" run of the notebooks (scripts/test.sh):
# every kernel that nbval starts with CTX_LAB_CLOCK_SHIFT_DAYS set sees the wall clock that many
# days ahead (time-machine patches datetime.now, date.today, time.time …; the clock keeps
# ticking). A notebook whose stored output depends on the day it was produced then fails.
def _shift_clock() -> None:
    import datetime
    import os

    days = int(os.environ.get("CTX_LAB_CLOCK_SHIFT_DAYS", "0") or 0)
    if not days:
        return
    import time_machine

    target = datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=days)
    time_machine.travel(target, tick=True).start()


_shift_clock()
del _shift_clock
