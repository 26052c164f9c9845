# Runs a command on a pseudo-terminal, as a person at a terminal would: what this script reads on stdin is typed
# into the terminal (keys, Enter as "\r", Esc as "\x1b"), and everything the command writes to the terminal is copied
# to stdout, byte for byte (escape sequences included, so a test can see exactly what a terminal would get). Exits
# with the command's exit code.
#   python3 test/support/pty-driver.py COMMAND [ARG...]
import errno
import fcntl
import os
import pty
import select
import struct
import sys
import termios

pid, master = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])

# A terminal of a usual size: programs that wrap or truncate lines see 24 rows of 100 columns.
fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
typing = True
while True:
    readers = [master, 0] if typing else [master]
    ready, _, _ = select.select(readers, [], [])
    if 0 in ready:
        keys = os.read(0, 1024)
        if keys:
            os.write(master, keys)
        else:
            typing = False
    if master in ready:
        try:
            output = os.read(master, 65536)
        except OSError as error:
            # The terminal's other end closed: the command has exited.
            if error.errno != errno.EIO:
                raise
            output = b""
        if not output:
            break
        os.write(1, output)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
