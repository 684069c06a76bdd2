package config

import (
	"bytes"
	"context"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Dir is where upstream's runtime loader finds the files:
// RUNTIME_ROOT/RUNTIME_SUBDIRECTORY/RUNTIME_APPDIRECTORY, every file below it.
type Dir struct {
	Root, Subdirectory, App string
	IgnoreDotFiles          bool
}

// Path is the folder the files are read from.
func (d Dir) Path() string { return filepath.Join(d.Root, d.Subdirectory, d.App) }

// Read gives every file below the folder, named as upstream's runtime names them
// ("config.<path with dots>"), sorted by name. A symlinked root (RUNTIME_WATCH_ROOT's
// atomic swap) is followed.
func (d Dir) Read() ([]File, error) {
	base, err := filepath.EvalSymlinks(d.Path())
	if err != nil {
		return nil, err
	}
	var files []File
	err = filepath.WalkDir(base, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IgnoreDotFiles && strings.HasPrefix(e.Name(), ".") && path != base {
			if e.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if e.IsDir() {
			return nil
		}
		content, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(base, path)
		files = append(files, File{Name: d.App + "." + strings.ReplaceAll(rel, string(filepath.Separator), "."), Content: content})
		return nil
	})
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	return files, err
}

// Watch reads the folder every interval and calls apply with each set of files that differs
// from the last one seen; apply says whether it took them. Polling sees a symlink swap, an
// edit in place and a new file alike, with no platform's file events to trust.
func (d Dir) Watch(ctx context.Context, interval time.Duration, last []File, apply func([]File) error, log *slog.Logger) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		files, err := d.Read()
		if err != nil {
			log.Error("reading the configuration failed: the last good configuration stays in force", "dir", d.Path(), "error", err)
			continue
		}
		if same(files, last) {
			continue
		}
		last = files
		if err := apply(files); err != nil {
			log.Error("Error loading new configuration: the last good configuration stays in force", "error", err.Error())
		}
	}
}

func same(a, b []File) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || !bytes.Equal(a[i].Content, b[i].Content) {
			return false
		}
	}
	return true
}
