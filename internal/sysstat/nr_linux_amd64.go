package sysstat

import "syscall"

const sysFstatat = syscall.SYS_NEWFSTATAT
