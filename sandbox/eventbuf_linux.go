package sandbox

import "sync"

// eventBufs are the buffers the watches and the listing sweep read the
// kernel's records into (fanotify and inotify events, directory entries).
// They come from the heap, shared: a 64 KiB array declared in the reading
// function would sit on its goroutine's stack, which then grows (and is
// copied) to hold it, touching sixteen fresh pages each time.
var eventBufs = sync.Pool{New: func() any {
	b := make([]byte, 16<<10)
	return &b
}}

func getEventBuf() *[]byte  { return eventBufs.Get().(*[]byte) }
func putEventBuf(b *[]byte) { eventBufs.Put(b) }
