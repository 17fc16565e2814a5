// Kubeconfig files: reading them into a RestConfig, and writing one.
//
// Reading follows kubectl: the current context unless one is named;
// certificate-authority/-data, client-certificate/-data, client-key/-data,
// token and tokenFile; relative file paths resolve against the kubeconfig's
// folder. Anything missing that a connection needs is an error naming it.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "kube/rest_config.h"

namespace vtenant::kube {

// Parses kubeconfig YAML text. `base_dir` resolves relative paths inside it.
Result<RestConfig> ParseKubeconfig(std::string_view yaml_text, std::string_view context = {},
                                   std::string_view base_dir = {});

// Reads and parses the kubeconfig file at `path`.
Result<RestConfig> LoadKubeconfig(const std::string& path, std::string_view context = {});

// The config of a pod's service account: the token and CA mounted under
// /var/run/secrets/kubernetes.io/serviceaccount (or `secrets_dir`) and
// KUBERNETES_SERVICE_HOST/PORT.
Result<RestConfig> InClusterConfig(
    const std::string& secrets_dir = "/var/run/secrets/kubernetes.io/serviceaccount");

// What a program uses when told nothing else: `explicit_path` if given, else
// $KUBECONFIG (first entry), else in-cluster when running in a pod, else
// ~/.kube/config.
Result<RestConfig> LoadDefaultConfig(const std::string& explicit_path = {});

// Renders a self-contained kubeconfig (certificates inlined as *-data) with a
// single cluster, user and context, all called `name`. Only an inline
// bearer_token is written: a bearer_token_file is left out, since a file
// path would not travel with the text. The context names a namespace only
// when default_namespace is not "default".
std::string RenderKubeconfig(const RestConfig& config, std::string_view name);

}  // namespace vtenant::kube
