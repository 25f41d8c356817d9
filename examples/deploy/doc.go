// Package deploy holds voxkit's container image (Dockerfile, with its
// build stage in build.sh), a compose file for a small fleet
// (compose.yaml) and Kubernetes manifests (k8s/). It has no Go code of its
// own: its tests check what can be checked without a container runtime or
// a cluster, and check-image.sh builds the image with podman and checks a
// container of it. See docs/deploy.md.
package deploy
