// Command trivy-db builds Capstan's small offline trivy vulnerability DB (issue 16, "Real
// scanner in the tests") from advisories.yaml, the way trivy-db builds the public one: the
// fixture is laid out as the vuln-list-debian / vuln-list-nvd trees trivy-db reads, and
// trivy-db's own Debian and NVD sources, insert, optimize and cleanup steps write the bolt DB
// and metadata.json. Nothing is downloaded and nothing listens.
//
//	go run . -out DIR          writes DIR/db/trivy.db and DIR/db/metadata.json (DIR is what
//	                           `trivy --cache-dir` takes)
//	go run . -oci DIR          also writes the fixture's old_image as an OCI image layout
//
// Both write into DIR.partial first and rename, so a directory that exists is complete.
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/aquasecurity/trivy-db/pkg/db"
	"github.com/aquasecurity/trivy-db/pkg/types"
	"github.com/aquasecurity/trivy-db/pkg/vulndb"
	"github.com/aquasecurity/trivy-db/pkg/vulnsrc"
	"github.com/aquasecurity/trivy-db/pkg/vulnsrc/debian"
	"github.com/aquasecurity/trivy-db/pkg/vulnsrc/nvd"
)

type fixture struct {
	Release struct {
		Codename string `yaml:"codename"`
		Major    string `yaml:"major"`
	} `yaml:"release"`
	Sources  map[string]string `yaml:"sources"`
	CVEs     []entry           `yaml:"cves"`
	DSAs     []entry           `yaml:"dsas"`
	OldImage struct {
		Name          string       `yaml:"name"`
		Tag           string       `yaml:"tag"`
		DebianVersion string       `yaml:"debian_version"`
		Packages      []dpkgRecord `yaml:"packages"`
	} `yaml:"old_image"`
}

type entry struct {
	ID      string   `yaml:"id"`
	Summary string   `yaml:"summary"`
	Lines   []string `yaml:"lines"`
	NVD     *struct {
		Published    string   `yaml:"published"`
		LastModified string   `yaml:"last_modified"`
		Description  string   `yaml:"description"`
		CVSS31       *cvss    `yaml:"cvss31"`
		CVSS2        *cvss    `yaml:"cvss2"`
		CWE          []string `yaml:"cwe"`
		References   []string `yaml:"references"`
	} `yaml:"nvd"`
}

type cvss struct {
	Vector   string  `yaml:"vector"`
	Score    float64 `yaml:"score"`
	Severity string  `yaml:"severity"`
}

type dpkgRecord struct {
	Package string `yaml:"package"`
	Source  string `yaml:"source"`
	Version string `yaml:"version"`
	Arch    string `yaml:"arch"`
}

// annotation is one parsed tracker line, in vuln-list-debian's JSON shape.
type annotation struct {
	Original    string
	Type        string
	Release     string   `json:",omitempty"`
	Package     string   `json:",omitempty"`
	Kind        string   `json:",omitempty"`
	Version     string   `json:",omitempty"`
	Description string   `json:",omitempty"`
	Severity    string   `json:",omitempty"`
	Bugs        []string `json:",omitempty"`
}

var (
	packageLine = regexp.MustCompile(`^(?:\[([a-z-]+)\]\s+)?-\s+(\S+)(?:\s+(?:<([a-z-]+)>|([^\s(]+)))?(?:\s+\((.*)\))?$`)
	xrefLine    = regexp.MustCompile(`^\{(.*)\}$`)
	severities  = map[string]bool{"unimportant": true, "low": true, "medium": true, "high": true}
)

// parseLine turns a tracker line ("[bookworm] - glibc 2.36-9+deb12u3",
// "- gcc-12 <unfixed> (unimportant)", "{CVE-2023-4911}") into an annotation.
func parseLine(line string) (annotation, error) {
	line = strings.TrimSpace(line)
	if m := xrefLine.FindStringSubmatch(line); m != nil {
		return annotation{Original: line, Type: "xref", Bugs: strings.Fields(m[1])}, nil
	}
	m := packageLine.FindStringSubmatch(line)
	if m == nil {
		return annotation{}, fmt.Errorf("not a tracker package line: %q", line)
	}
	a := annotation{Original: line, Type: "package", Release: m[1], Package: m[2], Kind: m[3], Version: m[4]}
	if a.Version != "" {
		a.Kind = "fixed"
	}
	if a.Kind == "" {
		return annotation{}, fmt.Errorf("no version or <state> in %q", line)
	}
	for _, part := range strings.Split(m[5], ";") {
		part = strings.TrimSpace(part)
		switch {
		case part == "" || strings.HasPrefix(part, "bug #"):
		case severities[part]:
			a.Severity = part
		default:
			a.Description = part
		}
	}
	return a, nil
}

func writeJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// writeVulnList lays the fixture out as trivy-db's inputs under dir.
func writeVulnList(dir string, f fixture) error {
	tracker := filepath.Join(dir, "vuln-list-debian", "tracker")
	dists := map[string]map[string]string{f.Release.Codename: {"major-version": f.Release.Major, "support": "security"}}
	if err := writeJSON(filepath.Join(tracker, "distributions.json"), dists); err != nil {
		return err
	}
	// trivy-db walks every one of these; the fixture has no DLAs and no security-archive sources.
	for _, d := range []string{"DLA", "DSA", "CVE", filepath.Join("updates-source", f.Release.Codename)} {
		if err := os.MkdirAll(filepath.Join(tracker, d), 0o755); err != nil {
			return err
		}
	}
	for pkg, version := range f.Sources {
		src := map[string][]string{"Package": {pkg}, "Version": {version}}
		if err := writeJSON(filepath.Join(tracker, "source", f.Release.Codename, "main", pkg[:1], pkg+".json"), src); err != nil {
			return err
		}
	}
	for kind, entries := range map[string][]entry{"CVE": f.CVEs, "DSA": f.DSAs} {
		for _, e := range entries {
			anns := []annotation{}
			for _, l := range e.Lines {
				a, err := parseLine(l)
				if err != nil {
					return fmt.Errorf("%s: %w", e.ID, err)
				}
				anns = append(anns, a)
			}
			header := map[string]string{"ID": e.ID, "Description": "(" + e.Summary + ")", "Original": e.ID + " (" + e.Summary + ")"}
			bug := map[string]any{"Header": header, "Annotations": anns}
			if err := writeJSON(filepath.Join(tracker, kind, e.ID+".json"), bug); err != nil {
				return err
			}
		}
	}
	for _, e := range f.CVEs {
		if e.NVD == nil {
			continue
		}
		if e.NVD.Published == "" {
			return fmt.Errorf("%s: an nvd entry needs its published date", e.ID)
		}
		lastModified := e.NVD.LastModified
		if lastModified == "" {
			lastModified = e.NVD.Published
		}
		cve := nvd.Cve{
			ID:           e.ID,
			Published:    e.NVD.Published,
			LastModified: lastModified,
			Descriptions: []nvd.LangString{{Lang: "en", Value: e.NVD.Description}},
			VulnStatus:   "Analyzed",
		}
		if c := e.NVD.CVSS31; c != nil {
			cve.Metrics.CvssMetricV31 = []nvd.CvssMetricV3{{Source: "nvd@nist.gov", Type: "Primary",
				CvssData: nvd.CvssDataV30{Version: "3.1", VectorString: c.Vector, BaseScore: c.Score, BaseSeverity: c.Severity}}}
		}
		if c := e.NVD.CVSS2; c != nil {
			cve.Metrics.CvssMetricV2 = []nvd.CvssMetricV2{{Source: "nvd@nist.gov", Type: "Primary", BaseSeverity: c.Severity,
				CvssData: nvd.CvssDataV20{Version: "2.0", VectorString: c.Vector, BaseScore: c.Score}}}
		}
		if len(e.NVD.CWE) > 0 {
			w := nvd.Weakness{Source: "nvd@nist.gov", Type: "Primary"}
			for _, id := range e.NVD.CWE {
				w.Description = append(w.Description, nvd.LangString{Lang: "en", Value: id})
			}
			cve.Weaknesses = []nvd.Weakness{w}
		}
		for _, u := range e.NVD.References {
			cve.References = append(cve.References, nvd.Reference{URL: u})
		}
		year := strings.Split(e.ID, "-")[1]
		if err := writeJSON(filepath.Join(dir, "vuln-list-nvd", "api", year, e.ID+".json"), cve); err != nil {
			return err
		}
	}
	return nil
}

// buildDB runs trivy-db's build over the laid-out inputs into out/db.
func buildDB(f fixture, out string, updatedAt time.Time) error {
	work, err := os.MkdirTemp("", "capstan-trivy-db-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if err := writeVulnList(work, f); err != nil {
		return err
	}
	dbDir := filepath.Join(out, "db")
	if err := db.Init(dbDir); err != nil {
		return err
	}
	defer db.Close()
	srcs := map[types.SourceID]vulnsrc.VulnSrc{"debian": debian.NewVulnSrc(), "nvd": nvd.NewVulnSrc()}
	// Good for a year from the fixture's date: trivy only reads NextUpdate without --skip-db-update.
	tdb := vulndb.New(work, dbDir, 365*24*time.Hour, vulndb.WithVulnSrcs(srcs), vulndb.WithClock(clocktesting.NewFakeClock(updatedAt)))
	if err := tdb.Build([]string{"debian", "nvd"}); err != nil {
		return err
	}
	// A downloaded DB carries DownloadedAt; without it trivy would call the DB corrupted on a
	// run that forgets --skip-db-update.
	metaPath := filepath.Join(dbDir, "metadata.json")
	var meta map[string]any
	b, err := os.ReadFile(metaPath)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		return err
	}
	meta["DownloadedAt"] = updatedAt.UTC()
	return writeJSON(metaPath, meta)
}

// tarLayer is one gzip'd layer holding the files given, with parent directories.
func tarLayer(files map[string]string) (gz []byte, diffID string, err error) {
	var raw bytes.Buffer
	tw := tar.NewWriter(&raw)
	dirs := map[string]bool{}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sortStrings(names)
	for _, name := range names {
		for d := filepath.Dir(name); d != "." && !dirs[d]; d = filepath.Dir(d) {
			dirs[d] = true
		}
	}
	dirList := make([]string, 0, len(dirs))
	for d := range dirs {
		dirList = append(dirList, d)
	}
	sortStrings(dirList)
	epoch := time.Unix(0, 0)
	for _, d := range dirList {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755, ModTime: epoch}); err != nil {
			return nil, "", err
		}
	}
	for _, name := range names {
		body := files[name]
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(body)), ModTime: epoch}); err != nil {
			return nil, "", err
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			return nil, "", err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(raw.Bytes())
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	if _, err := zw.Write(raw.Bytes()); err != nil {
		return nil, "", err
	}
	if err := zw.Close(); err != nil {
		return nil, "", err
	}
	return out.Bytes(), "sha256:" + hex.EncodeToString(sum[:]), nil
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// writeOCI writes the fixture's old_image: debian_version and os-release, and one dpkg
// status.d record per package (the distroless layout), nothing else. trivy recognises Debian
// by etc/debian_version alone (its os-release analyzer skips ID=debian).
func writeOCI(f fixture, dir string) error {
	files := map[string]string{
		"etc/debian_version": f.OldImage.DebianVersion + "\n",
		"etc/os-release":     "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\nVERSION_CODENAME=bookworm\nID=debian\n",
	}
	for _, p := range f.OldImage.Packages {
		rec := fmt.Sprintf("Package: %s\nStatus: install ok installed\nArchitecture: %s\nVersion: %s\n", p.Package, p.Arch, p.Version)
		if p.Source != "" && p.Source != p.Package {
			rec += "Source: " + p.Source + "\n"
		}
		rec += "Description: recorded for the trivy offline fixture (no files)\n"
		files["var/lib/dpkg/status.d/"+p.Package] = rec
	}
	layer, diffID, err := tarLayer(files)
	if err != nil {
		return err
	}
	blobs := filepath.Join(dir, "blobs", "sha256")
	if err := os.MkdirAll(blobs, 0o755); err != nil {
		return err
	}
	put := func(b []byte) (string, int, error) {
		sum := sha256.Sum256(b)
		h := hex.EncodeToString(sum[:])
		return "sha256:" + h, len(b), os.WriteFile(filepath.Join(blobs, h), b, 0o644)
	}
	layerDigest, layerSize, err := put(layer)
	if err != nil {
		return err
	}
	config, _ := json.Marshal(map[string]any{
		"architecture": "amd64", "os": "linux", "created": "1970-01-01T00:00:00Z",
		"config": map[string]any{},
		"rootfs": map[string]any{"type": "layers", "diff_ids": []string{diffID}},
	})
	configDigest, configSize, err := put(config)
	if err != nil {
		return err
	}
	manifest, _ := json.Marshal(map[string]any{
		"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
		"config": map[string]any{"mediaType": "application/vnd.oci.image.config.v1+json", "digest": configDigest, "size": configSize},
		"layers": []any{map[string]any{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": layerDigest, "size": layerSize}},
	})
	manifestDigest, manifestSize, err := put(manifest)
	if err != nil {
		return err
	}
	index := map[string]any{
		"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
		"manifests": []any{map[string]any{
			"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": manifestDigest, "size": manifestSize,
			"annotations": map[string]string{
				"org.opencontainers.image.ref.name": f.OldImage.Tag,
				"io.containerd.image.name":          f.OldImage.Name + ":" + f.OldImage.Tag,
			},
		}},
	}
	if err := writeJSON(filepath.Join(dir, "index.json"), index); err != nil {
		return err
	}
	return writeJSON(filepath.Join(dir, "oci-layout"), map[string]string{"imageLayoutVersion": "1.0.0"})
}

// atomically runs fn on dest.partial and renames it to dest.
func atomically(dest string, fn func(string) error) error {
	partial := dest + ".partial"
	if err := os.RemoveAll(partial); err != nil {
		return err
	}
	if err := os.MkdirAll(partial, 0o755); err != nil {
		return err
	}
	if err := fn(partial); err != nil {
		return err
	}
	if err := os.RemoveAll(dest); err != nil {
		return err
	}
	return os.Rename(partial, dest)
}

func main() {
	fixturePath := flag.String("fixture", "advisories.yaml", "the advisories fixture")
	out := flag.String("out", "", "cache dir to write db/trivy.db and db/metadata.json into (trivy --cache-dir)")
	oci := flag.String("oci", "", "also write the fixture's old_image as an OCI image layout here")
	updated := flag.String("updated-at", "2026-01-01T00:00:00Z", "the DB's UpdatedAt (fixed, so builds agree)")
	flag.Parse()
	if err := run(*fixturePath, *out, *oci, *updated); err != nil {
		fmt.Fprintln(os.Stderr, "trivy-db:", err)
		os.Exit(1)
	}
}

func run(fixturePath, out, oci, updated string) error {
	if out == "" && oci == "" {
		return errors.New("nothing to do: give -out and/or -oci")
	}
	b, err := os.ReadFile(fixturePath)
	if err != nil {
		return err
	}
	var f fixture
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return fmt.Errorf("%s: %w", fixturePath, err)
	}
	updatedAt, err := time.Parse(time.RFC3339, updated)
	if err != nil {
		return err
	}
	if out != "" {
		if err := atomically(out, func(dir string) error { return buildDB(f, dir, updatedAt) }); err != nil {
			return fmt.Errorf("db: %w", err)
		}
	}
	if oci != "" {
		if err := atomically(oci, func(dir string) error { return writeOCI(f, dir) }); err != nil {
			return fmt.Errorf("oci: %w", err)
		}
	}
	return nil
}
