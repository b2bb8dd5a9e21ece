package protocol

import (
	"fmt"
	"strconv"
)

func itoa(n int) string { return strconv.Itoa(n) }

func fmtSscanf(header string, n *int) (int, error) {
	return fmt.Sscanf(header, "Content-Length: %d", n)
}
