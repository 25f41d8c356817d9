package helm

// The chart renders with Helm's own engine, and every object it makes
// decodes, strictly, into the Kubernetes API's types: probes, resources,
// security contexts, Services that select the pods, and the workers'
// autoscaler on the queued segments' metric.

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

// rendered is what the chart made, by kind.
type rendered struct {
	deployments map[string]*appsv1.Deployment // by component: "worker", "gateway"
	services    []*corev1.Service
	pdbs        []*policyv1.PodDisruptionBudget
	hpas        []*autoscalingv2.HorizontalPodAutoscaler
	policies    []*networkingv1.NetworkPolicy
	scaled      []*scaledObject
}

// scaledObject is the part of KEDA's ScaledObject the chart sets (KEDA's
// types are a module of their own; strict decoding still refuses a field
// not listed here).
type scaledObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		ScaleTargetRef struct {
			Name string `json:"name"`
		} `json:"scaleTargetRef"`
		MinReplicaCount int `json:"minReplicaCount"`
		MaxReplicaCount int `json:"maxReplicaCount"`
		CooldownPeriod  int `json:"cooldownPeriod"`
		Triggers        []struct {
			Type     string            `json:"type"`
			Metadata map[string]string `json:"metadata"`
		} `json:"triggers"`
	} `json:"spec"`
}

// render renders the chart with values over its defaults, as
// "helm template vk ./voxkit --namespace speech" would.
func render(t *testing.T, values map[string]any) rendered {
	t.Helper()
	chart, err := loader.Load("voxkit")
	if err != nil {
		t.Fatal(err)
	}
	vals, err := chartutil.ToRenderValues(chart, values, chartutil.ReleaseOptions{Name: "vk", Namespace: "speech", IsInstall: true}, chartutil.DefaultCapabilities)
	if err != nil {
		t.Fatal(err)
	}
	files, err := engine.Engine{Strict: true}.Render(chart, vals)
	if err != nil {
		t.Fatal(err)
	}
	r := rendered{deployments: map[string]*appsv1.Deployment{}}
	names := map[string]bool{}
	for file, text := range files {
		if strings.HasSuffix(file, ".tpl") || strings.HasSuffix(file, "NOTES.txt") {
			continue
		}
		for _, doc := range strings.Split(text, "\n---") {
			if strings.TrimSpace(stripComments(doc)) == "" {
				continue
			}
			var meta metav1.TypeMeta
			if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
				t.Fatalf("%s: %v\n%s", file, err, doc)
			}
			var obj metav1.Object
			decode := func(v any) {
				if err := yaml.UnmarshalStrict([]byte(doc), v); err != nil {
					t.Fatalf("%s: a %s that does not decode: %v\n%s", file, meta.Kind, err, doc)
				}
				obj = v.(metav1.ObjectMetaAccessor).GetObjectMeta()
			}
			switch meta.APIVersion + " " + meta.Kind {
			case "apps/v1 Deployment":
				d := new(appsv1.Deployment)
				decode(d)
				r.deployments[d.Labels["app.kubernetes.io/component"]] = d
			case "v1 Service":
				s := new(corev1.Service)
				decode(s)
				r.services = append(r.services, s)
			case "policy/v1 PodDisruptionBudget":
				p := new(policyv1.PodDisruptionBudget)
				decode(p)
				r.pdbs = append(r.pdbs, p)
			case "autoscaling/v2 HorizontalPodAutoscaler":
				h := new(autoscalingv2.HorizontalPodAutoscaler)
				decode(h)
				r.hpas = append(r.hpas, h)
			case "networking.k8s.io/v1 NetworkPolicy":
				n := new(networkingv1.NetworkPolicy)
				decode(n)
				r.policies = append(r.policies, n)
			case "keda.sh/v1alpha1 ScaledObject":
				s := new(scaledObject)
				decode(s)
				r.scaled = append(r.scaled, s)
			default:
				t.Fatalf("%s: an object of kind %s %s", file, meta.APIVersion, meta.Kind)
			}
			key := meta.Kind + "/" + obj.GetName()
			if names[key] {
				t.Errorf("two objects are %s", key)
			}
			names[key] = true
			if obj.GetLabels()["app.kubernetes.io/instance"] != "vk" {
				t.Errorf("%s has labels %v", key, obj.GetLabels())
			}
		}
	}
	return r
}

func stripComments(doc string) string {
	var b strings.Builder
	for line := range strings.Lines(doc) {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// queueMetric is the metric of the job queue's depth the workers scale on.
const queueMetric = "voxkit_job_segments_pending"

// TestQueueMetricServed: the metric the chart scales on is one the server
// exports (docs/server.md lists every metric; the jobs runner's test
// checks it is served).
func TestQueueMetricServed(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "server.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "| `"+queueMetric+"` |") {
		t.Errorf("docs/server.md lists no metric %s", queueMetric)
	}
}

func TestChart(t *testing.T) {
	r := render(t, nil)
	if len(r.deployments) != 2 || r.deployments["worker"] == nil || r.deployments["gateway"] == nil {
		t.Fatalf("deployments: %v", r.deployments)
	}
	for role, d := range r.deployments {
		checkPods(t, role, d)
	}

	// The Services select their role's pods, on ports the pods have.
	selects := map[string]string{}
	for _, s := range r.services {
		for role, d := range r.deployments {
			if labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(d.Spec.Template.Labels)) {
				selects[s.Name] = role
				for _, p := range s.Spec.Ports {
					if !hasPort(d, p.TargetPort.String()) {
						t.Errorf("Service %s targets the port %s, which the %s pods lack", s.Name, p.TargetPort.String(), role)
					}
				}
			}
		}
	}
	if selects["vk-voxkit-workers"] != "worker" || selects["vk-voxkit"] != "gateway" {
		t.Errorf("Services select %v", selects)
	}
	for _, s := range r.services {
		if s.Name == "vk-voxkit-workers" && s.Spec.ClusterIP != corev1.ClusterIPNone {
			t.Errorf("the workers' Service is not headless: %q", s.Spec.ClusterIP)
		}
	}
	// The gateways reach the workers by that Service's name.
	if up := env(r.deployments["gateway"], "VOXKIT_UPSTREAM"); up != "dns+http://vk-voxkit-workers:8080" {
		t.Errorf("VOXKIT_UPSTREAM is %q", up)
	}
	for _, p := range r.pdbs {
		sel, err := metav1.LabelSelectorAsSelector(p.Spec.Selector)
		if err != nil || p.Spec.MinAvailable == nil || p.Spec.MinAvailable.IntValue() < 1 {
			t.Errorf("PodDisruptionBudget %s: %v %v", p.Name, err, p.Spec.MinAvailable)
		}
		n := 0
		for _, d := range r.deployments {
			if sel.Matches(labels.Set(d.Spec.Template.Labels)) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("PodDisruptionBudget %s selects %d Deployments' pods", p.Name, n)
		}
	}
	if len(r.pdbs) != 2 || len(r.policies) != 1 {
		t.Errorf("%d PodDisruptionBudgets, %d NetworkPolicies", len(r.pdbs), len(r.policies))
	}

	// The workers scale on the queued segments; the autoscaler, not the
	// Deployment, sets their replicas.
	if len(r.hpas) != 1 || len(r.scaled) != 0 {
		t.Fatalf("%d HorizontalPodAutoscalers, %d ScaledObjects", len(r.hpas), len(r.scaled))
	}
	h := r.hpas[0]
	if h.Spec.ScaleTargetRef.Kind != "Deployment" || h.Spec.ScaleTargetRef.Name != r.deployments["worker"].Name {
		t.Errorf("the autoscaler scales %+v", h.Spec.ScaleTargetRef)
	}
	if len(h.Spec.Metrics) != 1 || h.Spec.Metrics[0].Type != autoscalingv2.ExternalMetricSourceType ||
		h.Spec.Metrics[0].External.Metric.Name != queueMetric ||
		h.Spec.Metrics[0].External.Target.Type != autoscalingv2.AverageValueMetricType ||
		h.Spec.Metrics[0].External.Target.AverageValue.String() != "4" {
		t.Errorf("the autoscaler's metrics: %+v", h.Spec.Metrics)
	}
	if h.Spec.MinReplicas == nil || *h.Spec.MinReplicas != 2 || h.Spec.MaxReplicas != 10 {
		t.Errorf("the autoscaler scales from %v to %d", h.Spec.MinReplicas, h.Spec.MaxReplicas)
	}
	if r.deployments["worker"].Spec.Replicas != nil {
		t.Errorf("the workers' Deployment sets %d replicas under an autoscaler", *r.deployments["worker"].Spec.Replicas)
	}
}

// checkPods: probes on the pods' HTTP port, requests and limits of CPU
// and memory, a non-root pod and a container that cannot gain privileges
// and writes only its volumes.
func checkPods(t *testing.T, role string, d *appsv1.Deployment) {
	t.Helper()
	pod := d.Spec.Template.Spec
	if labels.SelectorFromSet(d.Spec.Selector.MatchLabels).Matches(labels.Set(d.Spec.Template.Labels)) == false {
		t.Errorf("%s: the Deployment's selector does not select its pods", role)
	}
	if sc := pod.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser == 0 ||
		sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("%s: pod security context %+v", role, sc)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%s: %d containers", role, len(pod.Containers))
	}
	c := pod.Containers[0]
	for name, p := range map[string]*corev1.Probe{"startup": c.StartupProbe, "liveness": c.LivenessProbe, "readiness": c.ReadinessProbe} {
		want := map[string]string{"startup": "/healthz", "liveness": "/healthz", "readiness": "/readyz"}[name]
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != want || !hasPort(d, p.HTTPGet.Port.String()) || p.PeriodSeconds < 1 {
			t.Errorf("%s: %s probe %+v, want GET %s on a port of the pod", role, name, p, want)
		}
	}
	for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, lim := c.Resources.Requests[res], c.Resources.Limits[res]
		if req.IsZero() || lim.IsZero() || req.Cmp(lim) > 0 {
			t.Errorf("%s: %s requests %v, limit %v", role, res, req.String(), lim.String())
		}
	}
	sc := c.SecurityContext
	if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") {
		t.Errorf("%s: container security context %+v", role, sc)
	}
	for _, m := range c.VolumeMounts {
		if !slices.ContainsFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Name == m.Name }) {
			t.Errorf("%s: the mount %s has no volume", role, m.Name)
		}
	}
	if env(d, "VOXKIT_STORE") != "secret:voxkit/store" {
		t.Errorf("%s: VOXKIT_STORE is %q", role, env(d, "VOXKIT_STORE"))
	}
	if d.Spec.Template.Annotations["prometheus.io/port"] != "9090" || !hasPort(d, "metrics") {
		t.Errorf("%s: metrics not scraped on 9090: %v", role, d.Spec.Template.Annotations)
	}
}

func hasPort(d *appsv1.Deployment, port string) bool {
	for _, c := range d.Spec.Template.Spec.Containers {
		for _, p := range c.Ports {
			if p.Name == port || port == strconv.Itoa(int(p.ContainerPort)) {
				return true
			}
		}
	}
	return false
}

// env is a variable of the Deployment's container: its value, or
// "secret:NAME/KEY" when it comes from a Secret.
func env(d *appsv1.Deployment, name string) string {
	for _, e := range d.Spec.Template.Spec.Containers[0].Env {
		if e.Name != name {
			continue
		}
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			return "secret:" + e.ValueFrom.SecretKeyRef.Name + "/" + e.ValueFrom.SecretKeyRef.Key
		}
		return e.Value
	}
	return ""
}

func TestChartKEDA(t *testing.T) {
	r := render(t, map[string]any{"autoscaling": map[string]any{"engine": "keda", "segmentsPerWorker": 3}})
	if len(r.hpas) != 0 || len(r.scaled) != 1 {
		t.Fatalf("%d HorizontalPodAutoscalers, %d ScaledObjects", len(r.hpas), len(r.scaled))
	}
	s := r.scaled[0]
	if s.Spec.ScaleTargetRef.Name != r.deployments["worker"].Name || s.Spec.MinReplicaCount != 2 || s.Spec.MaxReplicaCount != 10 {
		t.Errorf("the ScaledObject: %+v", s.Spec)
	}
	if len(s.Spec.Triggers) != 1 || s.Spec.Triggers[0].Type != "prometheus" ||
		!strings.Contains(s.Spec.Triggers[0].Metadata["query"], queueMetric) ||
		s.Spec.Triggers[0].Metadata["threshold"] != "3" || s.Spec.Triggers[0].Metadata["serverAddress"] == "" {
		t.Errorf("the ScaledObject's triggers: %+v", s.Spec.Triggers)
	}
}

func TestChartValues(t *testing.T) {
	r := render(t, map[string]any{
		"autoscaling": map[string]any{"enabled": false},
		"worker":      map[string]any{"replicas": 3, "voicesClaim": "voices"},
		"gateway":     map[string]any{"jobArgs": []any{"-max-jobs", "4"}, "wyoming": map[string]any{"enabled": false}},
	})
	if len(r.hpas)+len(r.scaled) != 0 {
		t.Errorf("an autoscaler with autoscaling off")
	}
	if w := r.deployments["worker"]; w.Spec.Replicas == nil || *w.Spec.Replicas != 3 {
		t.Errorf("workers' replicas %v", w.Spec.Replicas)
	}
	if args := r.deployments["gateway"].Spec.Template.Spec.Containers[0].Args; !slices.Equal(args[len(args)-2:], []string{"-max-jobs", "4"}) {
		t.Errorf("gateway args %q", args)
	}
	if hasPort(r.deployments["gateway"], "wyoming") || len(r.policies) != 0 {
		t.Errorf("Wyoming is off, yet the gateway listens for it")
	}
	for role, d := range r.deployments {
		checkPods(t, role, d)
	}

	chart, err := loader.Load("voxkit")
	if err != nil {
		t.Fatal(err)
	}
	vals, _ := chartutil.ToRenderValues(chart, map[string]any{"autoscaling": map[string]any{"engine": "custom"}}, chartutil.ReleaseOptions{Name: "vk"}, chartutil.DefaultCapabilities)
	if _, err := (engine.Engine{Strict: true}).Render(chart, vals); err == nil || !strings.Contains(err.Error(), `autoscaling.engine is "custom"`) {
		t.Errorf("an unknown autoscaling engine renders: %v", err)
	}
}

// TestChartAgreesWithManifests: the chart's pods run with the arguments
// and environment of k8s/voxkit.yaml, whose test holds them to the
// server's flags.
func TestChartAgreesWithManifests(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "k8s", "voxkit.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	manifests := map[string]*appsv1.Deployment{}
	for _, doc := range strings.Split(string(raw), "\n---") {
		var meta metav1.TypeMeta
		if yaml.Unmarshal([]byte(doc), &meta) != nil || meta.Kind != "Deployment" {
			continue
		}
		d := new(appsv1.Deployment)
		if err := yaml.UnmarshalStrict([]byte(doc), d); err != nil {
			t.Fatal(err)
		}
		manifests[d.Labels["role"]] = d
	}
	r := render(t, nil)
	for role, d := range r.deployments {
		m := manifests[role]
		if m == nil {
			t.Fatalf("k8s/voxkit.yaml has no %s", role)
		}
		got, want := d.Spec.Template.Spec.Containers[0], m.Spec.Template.Spec.Containers[0]
		if !slices.Equal(got.Args, want.Args) {
			t.Errorf("%s: args %q, the manifest's %q", role, got.Args, want.Args)
		}
		var names, wantNames []string
		for _, e := range got.Env {
			names = append(names, e.Name)
		}
		for _, e := range want.Env {
			wantNames = append(wantNames, e.Name)
		}
		if !slices.Equal(names, wantNames) {
			t.Errorf("%s: environment %q, the manifest's %q", role, names, wantNames)
		}
		if d.Spec.Template.Spec.TerminationGracePeriodSeconds == nil || *d.Spec.Template.Spec.TerminationGracePeriodSeconds != *m.Spec.Template.Spec.TerminationGracePeriodSeconds {
			t.Errorf("%s: terminationGracePeriodSeconds differs from the manifest's", role)
		}
	}
}
