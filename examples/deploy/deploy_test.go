package deploy

// The image's build steps run here, and the manifests parse and agree
// with the server's flags, its probes and each other.

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

var built struct {
	once sync.Once
	dir  string
	out  []byte
	err  error
}

// build runs build.sh once per test binary, as the image's build stage
// does, and returns its output directory.
func build(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the server")
	}
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "voxkit-deploy")
		if built.err != nil {
			return
		}
		cmd := exec.Command("sh", "build.sh", built.dir)
		built.out, built.err = cmd.CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("build.sh: %v\n%s", built.err, built.out)
	}
	return built.dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// serverHelp returns the built server's -h text: its flags and their
// environment variables.
func serverHelp(t *testing.T) string {
	t.Helper()
	out, _ := exec.Command(filepath.Join(build(t), "voxkit-server"), "-h").CombinedOutput()
	if !strings.Contains(string(out), "-addr") {
		t.Fatalf("voxkit-server -h:\n%s", out)
	}
	return string(out)
}

// TestBuildScript: the image's build stage, run here, makes a server that
// starts, answers its probes, and finds every shared library it links,
// beside the ONNX Runtime library it carries.
func TestBuildScript(t *testing.T) {
	dir := build(t)
	ldd, err := exec.Command("ldd", filepath.Join(dir, "voxkit-server")).CombinedOutput()
	if err != nil || bytes.Contains(ldd, []byte("not found")) {
		t.Fatalf("ldd: %v\n%s", err, ldd)
	}
	for _, lib := range []string{"libespeak-ng", "libopus", "libmp3lame"} {
		if !bytes.Contains(ldd, []byte(lib)) {
			t.Errorf("the server does not link %s:\n%s", lib, ldd)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "libonnxruntime.so.1")); err != nil || fi.Size() < 1<<20 {
		t.Fatalf("ONNX Runtime library: %v", err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(filepath.Join(dir, "voxkit-server"), "-addr", addr, "-data", t.TempDir(), "-log", "off")
	cmd.Env = append(os.Environ(), "ONNXRUNTIME_LIB="+filepath.Join(dir, "libonnxruntime.so.1"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the built server is not ready: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	res, err := http.Get("http://" + addr + "/healthz")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("/healthz: %v %v", res, err)
	}
	res.Body.Close()
}

// docs reads the YAML documents of a file.
func docs(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var d map[string]any
		if err := dec.Decode(&d); err != nil {
			if err.Error() == "EOF" {
				return out
			}
			t.Fatalf("%s: %v", path, err)
		}
		if d != nil {
			out = append(out, d)
		}
	}
}

// get walks a parsed YAML tree by keys and list indexes; nil when absent.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

var flagName = regexp.MustCompile(`^-([a-z][a-z-]*)$`)

// checkArgs fails for every flag in args and every VOXKIT_ variable in
// env that the server does not document in its -h.
func checkArgs(t *testing.T, where string, help string, args []any, env []string) {
	t.Helper()
	for _, a := range args {
		if m := flagName.FindStringSubmatch(fmt.Sprint(a)); m != nil && !strings.Contains(help, "-"+m[1]+" ") && !strings.Contains(help, "-"+m[1]+"\n") {
			t.Errorf("%s: flag -%s is not one of the server's", where, m[1])
		}
	}
	for _, name := range env {
		if strings.HasPrefix(name, "VOXKIT_") && !strings.Contains(help, "$"+name) {
			t.Errorf("%s: environment variable %s is not one the server reads", where, name)
		}
	}
}

// TestKubernetesManifests: the manifests parse; each Deployment runs as
// non-root with resource requests and probes on /healthz and /readyz; its
// flags, variables and secrets exist; each Service selects pods.
func TestKubernetesManifests(t *testing.T) {
	help := serverHelp(t)
	all := docs(t, filepath.Join("k8s", "voxkit.yaml"))
	secrets := map[string]map[string]any{}
	for _, d := range docs(t, "k8s-secret.example.yaml") {
		data, _ := get(d, "stringData").(map[string]any)
		secrets[fmt.Sprint(get(d, "metadata", "name"))] = data
	}
	var deployments, services, budgets []map[string]any
	for _, d := range all {
		if d["apiVersion"] == nil || d["kind"] == nil || get(d, "metadata", "name") == nil {
			t.Errorf("document without apiVersion, kind or name: %v", d)
		}
		switch d["kind"] {
		case "Secret": // applied again, it would overwrite the real one
			t.Errorf("k8s/voxkit.yaml holds the Secret %v", get(d, "metadata", "name"))
		case "Deployment":
			deployments = append(deployments, d)
		case "Service":
			services = append(services, d)
		case "PodDisruptionBudget":
			budgets = append(budgets, d)
		}
	}
	if len(deployments) != 2 || len(services) != 2 || len(budgets) != 2 || len(secrets) != 1 {
		t.Fatalf("%d Deployments, %d Services, %d PodDisruptionBudgets, %d Secrets in the example; want the gateway's and the workers' and one Secret",
			len(deployments), len(services), len(budgets), len(secrets))
	}
	selects := func(sel any, d map[string]any) bool {
		labels, _ := get(d, "spec", "template", "metadata", "labels").(map[string]any)
		return matches(sel, labels)
	}
	for _, d := range deployments {
		name := get(d, "metadata", "name")
		pod := get(d, "spec", "template", "spec")
		if get(pod, "securityContext", "runAsNonRoot") != true {
			t.Errorf("%s: not runAsNonRoot", name)
		}
		if get(d, "spec", "template", "metadata", "annotations", "prometheus.io/scrape") != "true" {
			t.Errorf("%s: no scrape annotation", name)
		}
		if !slices.ContainsFunc(budgets, func(b map[string]any) bool { return selects(get(b, "spec", "selector", "matchLabels"), d) }) {
			t.Errorf("%s: no PodDisruptionBudget", name)
		}
		if !slices.ContainsFunc(services, func(s map[string]any) bool {
			return selects(get(s, "spec", "selector"), d) && strings.Contains(fmt.Sprint(get(s, "spec", "ports")), "9090")
		}) {
			t.Errorf("%s: its metrics port is in no Service", name)
		}
		grace, _ := get(pod, "terminationGracePeriodSeconds").(int)
		for _, c := range list(get(pod, "containers")) {
			if p := get(c, "livenessProbe", "httpGet", "path"); p != "/healthz" {
				t.Errorf("%s: liveness probe %v, want /healthz", name, p)
			}
			if p := get(c, "readinessProbe", "httpGet", "path"); p != "/readyz" {
				t.Errorf("%s: readiness probe %v, want /readyz", name, p)
			}
			if get(c, "startupProbe", "httpGet") == nil || get(c, "lifecycle", "preStop") == nil {
				t.Errorf("%s: no startupProbe or preStop", name)
			}
			if get(c, "resources", "requests", "cpu") == nil || get(c, "resources", "requests", "memory") == nil || get(c, "resources", "limits", "cpu") == nil {
				t.Errorf("%s: no cpu and memory requests, or no cpu limit (the render slots)", name)
			}
			if !strings.Contains(fmt.Sprint(get(c, "image")), "/") {
				t.Errorf("%s: image %v names no registry", name, get(c, "image"))
			}
			args := list(get(c, "args"))
			if i := slices.IndexFunc(args, func(a any) bool { return a == "-shutdown-timeout" }); i < 0 || i+1 >= len(args) {
				t.Errorf("%s: no -shutdown-timeout", name)
			} else if drain, err := time.ParseDuration(fmt.Sprint(args[i+1])); err != nil || time.Duration(grace)*time.Second < drain+10*time.Second {
				t.Errorf("%s: terminationGracePeriodSeconds %d leaves no room after -shutdown-timeout %v and preStop", name, grace, args[i+1])
			}
			var env []string
			for _, e := range list(get(c, "env")) {
				env = append(env, fmt.Sprint(get(e, "name")))
				if ref := get(e, "valueFrom", "secretKeyRef"); ref != nil {
					s, ok := secrets[fmt.Sprint(get(ref, "name"))]
					if _, has := s[fmt.Sprint(get(ref, "key"))]; !ok || !has {
						t.Errorf("%s: %v refers to a secret key that does not exist", name, ref)
					}
				}
			}
			checkArgs(t, fmt.Sprint(name), help, args, env)
		}
	}
	for _, s := range services {
		if !slices.ContainsFunc(deployments, func(d map[string]any) bool { return selects(get(s, "spec", "selector"), d) }) {
			t.Errorf("service %v selects no Deployment's pods", get(s, "metadata", "name"))
		}
	}
}

// TestWyomingNetworkPolicy: a Deployment whose Wyoming listener (no
// authentication) is on every address has a NetworkPolicy for its pods
// under which only the clients a rule names reach the Wyoming port.
func TestWyomingNetworkPolicy(t *testing.T) {
	all := docs(t, filepath.Join("k8s", "voxkit.yaml"))
	var policies []map[string]any
	for _, d := range all {
		if d["kind"] == "NetworkPolicy" {
			policies = append(policies, d)
		}
	}
	open := 0
	for _, d := range all {
		if d["kind"] != "Deployment" {
			continue
		}
		name := get(d, "metadata", "name")
		labels, _ := get(d, "spec", "template", "metadata", "labels").(map[string]any)
		for _, c := range list(get(d, "spec", "template", "spec", "containers")) {
			port, ok := wyomingOnAllAddresses(c)
			if !ok {
				continue
			}
			open++
			portName := ""
			for _, p := range list(get(c, "ports")) {
				if fmt.Sprint(get(p, "containerPort")) == port {
					portName = fmt.Sprint(get(p, "name"))
				}
			}
			guarded := slices.ContainsFunc(policies, func(np map[string]any) bool {
				return matches(get(np, "spec", "podSelector", "matchLabels"), labels) &&
					slices.Contains(list(get(np, "spec", "policyTypes")), any("Ingress")) &&
					wyomingFromNamedOnly(list(get(np, "spec", "ingress")), port, portName)
			})
			if !guarded {
				t.Errorf("%s: Wyoming on all addresses (port %s) and no NetworkPolicy lets only named clients reach it", name, port)
			}
		}
	}
	if open == 0 {
		t.Error("no Deployment listens for Wyoming on all addresses: this test checks nothing")
	}
}

// wyomingOnAllAddresses returns the port of a container's Wyoming
// listener (-wyoming-addr or $VOXKIT_WYOMING_ADDR) when it is on every
// address (0.0.0.0, [::] or no host).
func wyomingOnAllAddresses(c any) (port string, ok bool) {
	addr := ""
	for _, e := range list(get(c, "env")) {
		if get(e, "name") == "VOXKIT_WYOMING_ADDR" {
			addr = fmt.Sprint(get(e, "value"))
		}
	}
	args := list(get(c, "args"))
	if i := slices.Index(args, any("-wyoming-addr")); i >= 0 && i+1 < len(args) {
		addr = fmt.Sprint(args[i+1])
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", false
	}
	return port, host == "" || host == "0.0.0.0" || host == "::"
}

// matches reports whether a non-empty matchLabels selects labels.
func matches(sel any, labels map[string]any) bool {
	m, _ := sel.(map[string]any)
	for k, v := range m {
		if labels[k] != v {
			return false
		}
	}
	return len(m) > 0
}

// wyomingFromNamedOnly reports whether ingress rules let some client
// reach the Wyoming port (by number or name) and every rule that opens
// it names its clients (a non-empty from).
func wyomingFromNamedOnly(rules []any, port, portName string) bool {
	reached := false
	for _, r := range rules {
		ports := list(get(r, "ports"))
		opens := len(ports) == 0 || slices.ContainsFunc(ports, func(p any) bool {
			v := fmt.Sprint(get(p, "port"))
			return v == port || v == portName
		})
		if !opens {
			continue
		}
		if len(list(get(r, "from"))) == 0 {
			return false
		}
		reached = true
	}
	return reached
}

// TestCompose: the compose file parses, has PostgreSQL, two workers and a
// gateway routing to them, with variables the server reads.
func TestCompose(t *testing.T) {
	help := serverHelp(t)
	c := docs(t, "compose.yaml")[0]
	services, _ := c["services"].(map[string]any)
	for _, name := range []string{"postgres", "worker1", "worker2", "gateway"} {
		if services[name] == nil {
			t.Fatalf("no service %s", name)
		}
	}
	for name, s := range services {
		if name == "postgres" || name == "prometheus" {
			continue
		}
		env, _ := get(s, "environment").(map[string]any)
		var names []string
		for k := range env {
			names = append(names, k)
		}
		checkArgs(t, name, help, list(get(s, "command")), names)
		if !strings.HasPrefix(fmt.Sprint(env["VOXKIT_STORE"]), "postgres://") {
			t.Errorf("%s: store %v, want the PostgreSQL service", name, env["VOXKIT_STORE"])
		}
	}
	// Each server has a health check the image can run (no curl), and
	// Prometheus scrapes each one's metrics listener.
	prom := docs(t, "prometheus.yml")[0]
	targets := fmt.Sprint(get(prom, "scrape_configs"))
	for _, name := range []string{"worker1", "worker2", "gateway"} {
		if test := fmt.Sprint(get(services[name], "healthcheck", "test")); !strings.Contains(test, "healthcheck") {
			t.Errorf("%s: health check %s, want the server's healthcheck", name, test)
		}
		if !strings.Contains(targets, name+":9090") {
			t.Errorf("prometheus.yml does not scrape %s:9090", name)
		}
	}
	if !strings.Contains(fmt.Sprint(get(services["prometheus"], "volumes")), "prometheus.yml") {
		t.Errorf("the prometheus service does not mount prometheus.yml")
	}
	upstream := fmt.Sprint(get(services["gateway"], "environment", "VOXKIT_UPSTREAM"))
	for _, w := range []string{"http://worker1:8080", "http://worker2:8080"} {
		if !strings.Contains(upstream, w) {
			t.Errorf("gateway upstream %q lacks %s", upstream, w)
		}
	}
}

// TestHomeAssistantCompose: home-assistant.yaml runs one server of the
// image with the Wyoming listener on all of the container's interfaces,
// 10200 and 8080 published, the data on a volume and the image's health
// check, with only variables and flags the server has.
func TestHomeAssistantCompose(t *testing.T) {
	help := serverHelp(t)
	s := get(docs(t, "home-assistant.yaml")[0], "services", "voxkit")
	if s == nil {
		t.Fatal("no service voxkit")
	}
	env, _ := get(s, "environment").(map[string]any)
	var names []string
	for k := range env {
		names = append(names, k)
	}
	checkArgs(t, "voxkit", help, list(get(s, "command")), names)
	if env["VOXKIT_WYOMING_ADDR"] != "0.0.0.0:10200" {
		t.Errorf("VOXKIT_WYOMING_ADDR %v, want 0.0.0.0:10200 (reachable through the published port)", env["VOXKIT_WYOMING_ADDR"])
	}
	ports := fmt.Sprint(get(s, "ports"))
	for _, p := range []string{"10200:10200", "8080:8080"} {
		if !strings.Contains(ports, p) {
			t.Errorf("ports %s lack %s", ports, p)
		}
	}
	if v := fmt.Sprint(get(s, "volumes")); !strings.Contains(v, ":/data") {
		t.Errorf("volumes %s: /data is not kept", v)
	}
	if test := fmt.Sprint(get(s, "healthcheck", "test")); !strings.Contains(test, "healthcheck") {
		t.Errorf("health check %s, want the server's healthcheck", test)
	}
}

// TestDockerfile: the image is built by build.sh, runs the server it
// built as a non-root user with /data a volume, a HEALTHCHECK and metrics
// on 9090, and sets only variables the server reads. (check-image.sh
// builds and runs it.)
func TestDockerfile(t *testing.T) {
	help := serverHelp(t)
	f, err := os.Open("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stages int
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "FROM ") {
			stages++
			lines = nil // keep the last stage
		}
		lines = append(lines, line)
	}
	final := strings.Join(lines, "\n")
	if stages != 2 {
		t.Errorf("%d stages, want a build stage and a runtime stage", stages)
	}
	b, _ := os.ReadFile("Dockerfile")
	if !strings.Contains(string(b), "RUN sh examples/deploy/build.sh /out") {
		t.Error("the build stage does not run examples/deploy/build.sh")
	}
	user := regexp.MustCompile(`(?m)^USER (\S+)$`).FindStringSubmatch(final)
	if user == nil || user[1] == "root" || user[1] == "0" {
		t.Errorf("runtime stage user %v: want a non-root one", user)
	}
	for _, want := range []string{"COPY --from=build /out/voxkit-server /usr/local/bin/voxkit-server",
		`ENTRYPOINT ["/usr/local/bin/voxkit-server"]`, "espeak-ng-data", "libonnxruntime.so.1",
		"VOLUME /data", "HEALTHCHECK ", "VOXKIT_METRICS_ADDR=0.0.0.0:9090"} {
		if !strings.Contains(final, want) {
			t.Errorf("runtime stage lacks %q", want)
		}
	}
	var env []string
	for _, m := range regexp.MustCompile(`(VOXKIT_[A-Z_]+)=`).FindAllStringSubmatch(final, -1) {
		env = append(env, m[1])
	}
	if len(env) == 0 {
		t.Error("the image sets no VOXKIT_ variables")
	}
	checkArgs(t, "Dockerfile", help, nil, env)

	// The comment above HEALTHCHECK and docs/deploy.md name the probe the
	// healthcheck subcommand asks for.
	out, _ := exec.Command(filepath.Join(build(t), "voxkit-server"), "healthcheck", "-h").CombinedOutput()
	m := regexp.MustCompile(`\(default "(/\w+)"\)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("voxkit-server healthcheck -h names no default path:\n%s", out)
	}
	probe := string(m[1])
	comment := regexp.MustCompile(`(?s)((?:#[^\n]*\n)+)HEALTHCHECK`).FindSubmatch(b)
	if comment == nil || !strings.Contains(string(comment[1]), probe) || strings.Contains(string(comment[1]), otherProbe(probe)) {
		t.Errorf("the comment above HEALTHCHECK does not say it asks %s: %q", probe, comment)
	}
	doc, _ := os.ReadFile(filepath.Join("..", "..", "docs", "deploy.md"))
	bullet := regexp.MustCompile("(?s)\\* `HEALTHCHECK`.*?\n\\*").Find(doc)
	if !bytes.Contains(bullet, []byte(probe)) || bytes.Contains(bullet, []byte(otherProbe(probe))) {
		t.Errorf("docs/deploy.md's HEALTHCHECK item does not say it asks %s: %q", probe, bullet)
	}
}

// otherProbe is the probe that is not p.
func otherProbe(p string) string {
	if p == "/readyz" {
		return "/healthz"
	}
	return "/readyz"
}
