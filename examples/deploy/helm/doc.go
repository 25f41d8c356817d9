// Package helm holds voxkit's Helm chart (voxkit/) for a fleet on
// Kubernetes: synthesis workers, gateways in front of them that serve the
// API and run long-form jobs, and an autoscaler that scales the workers
// on the job queue's depth (the Prometheus metric
// voxkit_job_segments_pending) as a HorizontalPodAutoscaler or a KEDA
// ScaledObject. It is a module of its own, so that Helm and the
// Kubernetes API types its test renders and decodes the chart with stay
// out of voxkit's module. See docs/deploy.md, "Kubernetes with Helm".
package helm
