//go:build !unix

package risk

func cpuTime() int64 { return 0 }
