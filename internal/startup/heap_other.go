//go:build !linux

package startup

func prepareHeap() {}
