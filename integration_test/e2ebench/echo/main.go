// Command echo is the bare baseline of the end-to-end benchmark:
// a single-threaded loop that decodes each JSON-RPC request line and
// answers it at once with an allow, doing nothing else. What toolgate
// costs a host is measured against it in the same run.
package main

import (
	"bufio"
	"encoding/json"
	"os"
)

type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	out := bufio.NewWriter(os.Stdout)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			var req request
			if json.Unmarshal(line, &req) == nil && len(req.ID) > 0 {
				out.WriteString(`{"jsonrpc":"2.0","id":`)
				out.Write(req.ID)
				out.WriteString(`,"result":{"action":"allow"}}` + "\n")
				out.Flush()
			}
		}
		if err != nil {
			return
		}
	}
}
