/*
 * rules-builtin.c: the built-in credential rules, one entry per rule.
 *
 * Written from each provider's documented token format: a fixed prefix
 * and alphabet where the provider has one, otherwise the provider's name
 * as context next to a value of the documented length and alphabet.
 *
 * Each entry: id, description, keywords ('|'-separated, matched without
 * regard to ASCII case; a leading \b means "only at the start of a word"),
 * a PCRE2 regex whose group 1 (if any) is the secret, and optionally an
 * entropy floor, an allowlist regex, flags, a validator and the window
 * around each keyword hit that the regex is run on.
 *
 * A regex is tried once, anchored where its keyword starts, unless the rule
 * has LEAK_RF_WINDOW: then the match may begin before the keyword (the
 * keyword sits in the middle of the token, or the rule needs context in
 * front of it) and the regex searches the window [hit - before, hit +
 * after).
 */
#include "config.h"

#include "safety/safety-int.h"

/* A token starts and ends at a word boundary of its alphabet. */
#define B  "(?<![A-Za-z0-9_\\-])"
#define E  "(?![A-Za-z0-9_\\-])"
#define EA "(?![A-Za-z0-9])"

/* A quote, also as written inside a JSON string (\") or inside a JSON
 * string that is itself JSON-escaped (\\\"). */
#define Q  "(?:\\\\{0,3}[\"'])"
#define QB "(?:\\\\{0,3}[\"'`])"

/* Other ways code and config give a name its value, for KV and the
 * generic rules: a name/value pair ({"name": "NAME", "value": "v"},
 * {name: NAME, value: v}, "- name: NAME" and "value: v" on the next
 * line), a fallback (process.env.NAME || "v", ?? in C# and JavaScript)
 * and a Terraform variable's default (variable "name" { type = string,
 * default = "v" }). */
#define ASSIGN_MORE                                                            \
	"|,\\s{0,4}" Q "?(?i:value)" Q "?\\s{0,4}[:=]"                         \
	"|\\r?\\n[ \\t]{0,12}(?i:value)[ \\t]{0,2}:"                           \
	"|\\|\\|=?|\\?\\?=?|\\{[^{}]{0,100}?\\b(?i:default)\\s{0,4}="

/* A call with the name and the value as its arguments: os.Setenv("NAME",
 * "v"), headers.set("X-Key", 'v').  After a provider's name any quoted
 * name will do; for the generic rules the quoted name must end in a
 * qualified key word ("DB_PASSWORD", "X-Api-Key"; not "password" or
 * "HTTPPasswordMgr" in a list of strings). */
#define CALL_KV "|,(?=\\s{0,4}\\\\{0,3}[\"'`])"
#define CALL_GEN                                                               \
	"|(?:(?<=(?i)[_.\\-]key[\"'`])|(?<=(?i)[_.\\-]token[\"'`])|"           \
	"(?<=(?i)[_.\\-]secret[\"'`])|(?<=(?i)[_.\\-]password[\"'`])|"         \
	"(?<=(?i)[_.\\-]passwd[\"'`])|(?<=(?i)[_.\\-]pwd[\"'`])|"              \
	"(?<=(?i)[_.\\-]pass[\"'`])),(?=\\s{0,4}\\\\{0,3}[\"'`])"

/* A value as code writes it in a call or a byte string:
 * bytes.fromhex('...'), base64.b64decode("..."), Buffer.from('...'),
 * []byte("..."), b'...'. */
#define OPENER                                                                 \
	"(?:(?:bytes\\.fromhex|(?:base64\\.)?b64decode|Buffer\\.from|"         \
	"\\[\\]byte|atob|unhexlify|SecretStr)\\(\\s*|b(?=['\"]))?"

/* A name in prose, then "is": "the key is", "the key we use is", "the
 * password for prod is" (scan.c's connector() has the words). */
#define PROSE_IS                                                               \
	"(?:(?:we|i|you|they|for|that|here|used|in|of|on|to|from|at)\\s+"      \
	"(?:[a-z]{1,10}\\s+){0,2})?is\\s+"

/* The generic rules' assignment, after the name: the name's closing
 * quote, an operator or one of the forms above, and blanks on the same
 * line (a value is never on the next line, where the next setting is:
 * "password=" then "DB_HOST=db"). */
#define GEN_ASSIGN                                                             \
	QB "?\\]?\\s{0,4}(?:=|:=|=>|:|->|>(?!\\s)|"                            \
	   "\\s+" PROSE_IS "|"                                                 \
	   "\\s+(?=\\\\{0,3}[\"'])" CALL_GEN ASSIGN_MORE                       \
	   ")[ \\t]{0,4}" OPENER QB "?"

/* "NAME...  = VALUE" in .env, YAML, JSON, headers, code and query
 * strings: the provider name (case-insensitive), up to 24 more identifier
 * bytes or a few words of prose ("my heroku api key is ..."), an
 * assignment, then the value as group 1. */
#define KV(name, value)                                                        \
	"(?i:" name ")[A-Za-z0-9_.\\-]{0,24}"                                  \
	"(?:\\s(?i:api|access|secret|auth|client|app|private|key|token|"       \
	"password|license|integration|write|management|admin|server|"          \
	"service|account|bot|personal|user|deploy|credentials?)){0,3}" Q       \
	"?\\]?\\s{0,4}(?:=|:=|=>|:|\\(|\\s+is\\s+|\\s" CALL_KV ASSIGN_MORE ")" \
	"\\s{0,4}" QB "?(?:Bearer\\s+|token\\s+)?(" value ")" EA

#define HEX(n)	 "[a-f0-9]{" #n "}"
#define UHEX(n)	 "[A-Fa-f0-9]{" #n "}"
#define ALNUM(n) "[A-Za-z0-9]{" #n "}"
#define UUID                                                                   \
	"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-"   \
	"fA-F]{12}"

/* Keys printed in providers' API references (never live), OpenSSL's
 * published FIPS module integrity key (fipskey.h), the tokens of the
 * OAuth 2.0 RFCs' examples (6749, 6750), copied into many docs, and public
 * keys whose names look like a secret's: every rule that could take them
 * for a secret allows them. */
/* jwt.io's example token (any signature), in countless docs */
#define JWT_IO_EXAMPLE                                                         \
	"^eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9\\.eyJzdWIiOiIxMjM0NTY3ODkwIiwi" \
	"bmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ\\."
#define DOC_EXAMPLES                                                           \
	"^sk_test_(?:4eC39HqLyjWDarjtT1zdp7dc|BQokikJOvBiI2HlWgH4olfQ2)$"      \
	"|^f4556650ac31d35461610bac4ed81b1a181b2d8a43ea2854cbae22ca74560813$"  \
	"|^(?:2YotnFZFEjr1zCsicMWpAA|tGzv3JOkF0XG5Qx2TlKWIA|"                  \
	"czZCaGRSa3F0MzpnWDFmQmF0M2JW|mF_9\\.B5f-4\\.1JqM)$"                   \
	"|^QWxhZGRpbjpvcGVuIHNlc2FtZQ==$|" JWT_IO_EXAMPLE
/* Keys made to be published: PubNub's, Stripe's, Mapbox's public
 * tokens, Mailgun's validation key, Supabase's publishable key and
 * PostHog's project key. */
#define PUBLIC_KEYS                                                            \
	"^(?:pub|sub)-c-|^pk_(?:live|test)_|^pk\\.eyJ|^pubkey-|"               \
	"^sb_publishable_|^phc_"

#define RULE(i, d, k, r, ...)                                                  \
	{                                                                      \
		.id = i, .description = d, .keywords = k, .regex = r,          \
		__VA_ARGS__                                                    \
	}

/* The placeholder and shape checks of LEAK_RF_VALUE apply to the values
 * of context rules; UUIDs are allowed where the provider uses them. */
#define CTX  .flags = LEAK_RF_VALUE
#define CTXU .flags = LEAK_RF_VALUE | LEAK_RF_UUID_OK | LEAK_RF_HEX_OK
#define CTXH .flags = LEAK_RF_VALUE | LEAK_RF_HEX_OK

static bool
alpha_byte(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool
alnum_byte(uint8_t c)
{
	return alpha_byte(c) || (c >= '0' && c <= '9');
}

/* Prechecks (see leak_precheck_fn): each tests bytes its rule's regex
 * needs at fixed places from the keyword, nothing more. */

/* airtable-pat: B "pat" [A-Za-z0-9]{14} "." HEX(64) at start. */
static bool
pre_airtable_pat(const uint8_t *p, size_t n, size_t start, size_t end)
{
	(void)end;
	if (n - start < 3 + 14 + 1 + 64 || p[start] != 'p' ||
	    p[start + 1] != 'a' || p[start + 2] != 't' || p[start + 17] != '.')
		return false;
	if (start > 0 &&
	    (alnum_byte(p[start - 1]) || p[start - 1] == '_' ||
		p[start - 1] == '-'))
		return false;
	for (size_t i = start + 3; i < start + 17; i++)
		if (!alnum_byte(p[i]))
			return false;
	return true;
}

/* generic-api-key: of its names only "pat" starts with 'p', and it must
 * be a word of its own: (?i:(?<![a-z])pat(?![a-z])). */
static bool
pre_generic_api_key(const uint8_t *p, size_t n, size_t start, size_t end)
{
	if ((p[start] | 0x20) != 'p')
		return true;
	return !(start > 0 && alpha_byte(p[start - 1])) &&
	    !(end < n && alpha_byte(p[end]));
}

const struct leak_rule_def leak_builtin_rules[] = {
	/* ---- Amazon Web Services ---- */
	RULE("aws-access-key-id", "AWS access key ID",
	    "akia|asia|abia|acca|agpa|aida|aipa|anpa|anva|aroa|apka|asca|a3t",
	    /* real ids are base32 ([A-Z2-7]); ids written by hand or by
	     * generators use any digit, and are still taken for keys */
	    B "((?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA|"
	      "A3T[A-Z0-9])[A-Z0-9]{16})" EA,
	    .entropy = 3.0, .before = 4),
	RULE("aws-secret-access-key", "AWS secret access key",
	    "secret_access_key|secretaccesskey|secret-access-key|aws",
	    "(?i:aws[A-Za-z0-9_\\-]{0,20}secret[A-Za-z0-9_\\-]{0,20}|"
	    "secret[_\\-]?access[_\\-]?key[A-Za-z0-9_\\-]{0,16})" Q
	    "?\\s{0,4}(?:=|:|:=|=>)\\s{0,4}" Q "?"
	    "([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
	    .entropy = 4.0, .before = 40),
	RULE("aws-session-token", "AWS session token",
	    "session_token|sessiontoken|security_token|iqojb3jpz2lux2vj|"
	    "fwogzxivyxdz",
	    "((?:IQoJb3JpZ2luX2Vj|FwoGZXIvYXdzE)[A-Za-z0-9/+=]{100,1200})",
	    .entropy = 4.0, .before = 40, .after = 1400),
	RULE("aws-mws-key", "Amazon MWS auth token", "amzn.mws.",
	    B "(amzn\\.mws\\." UUID ")" EA),

	/* ---- Google Cloud and Google APIs ---- */
	RULE("gcp-api-key", "Google API key (Cloud, Maps, Gemini)", "aiza",
	    B "(AIza[0-9A-Za-z_\\-]{35})" E, .entropy = 3.5),
	RULE("gcp-oauth-client-secret", "Google OAuth client secret", "gocspx-",
	    B "(GOCSPX-[A-Za-z0-9_\\-]{28})" E),
	RULE("gcp-oauth-access-token", "Google OAuth access token", "ya29.",
	    B "(ya29\\.[0-9A-Za-z_\\-]{30,2048})" E, .after = 2100),
	RULE("gcp-oauth-refresh-token", "Google OAuth refresh token", "1//0",
	    "(?<![A-Za-z0-9/])(1//0[A-Za-z0-9_\\-]{40,512})" E, .entropy = 4.0,
	    .after = 600),
	RULE("gcp-service-account-key-id",
	    "Google service account private key id", "private_key_id",
	    "\"private_key_id\"\\s*:\\s*\"(" HEX(40) ")\"", .before = 4,
	    .flags = LEAK_RF_WINDOW | LEAK_RF_HEX_OK),

	/* ---- Microsoft Azure ---- */
	RULE("azure-storage-account-key", "Azure storage account key",
	    "accountkey=", "(?i:AccountKey=)([A-Za-z0-9+/]{86}==)"),
	RULE("azure-shared-access-key",
	    "Azure Service Bus / Event Hubs / IoT shared access key",
	    "sharedaccesskey=", "(?i:SharedAccessKey=)([A-Za-z0-9+/]{42,44}=)"),
	RULE("azure-sas-token", "Azure shared access signature", "sig=",
	    "(?i)(?:[?&;=\"'`]|^|\\s)sv=\\d{4}-\\d\\d-\\d\\d&[^\\s\"'<>]{0,400}"
	    "?"
	    "sig=([A-Za-z0-9%+/]{40,120}(?:%3D|=){0,2})",
	    .before = 500, .after = 140, .flags = LEAK_RF_WINDOW),
	RULE("azure-ad-client-secret", "Microsoft Entra ID client secret",
	    "0q~|1q~|2q~|3q~|4q~|5q~|6q~|7q~|8q~|9q~",
	    "(?<![A-Za-z0-9_~.\\-])([A-Za-z0-9_~.\\-]{3}[0-9]Q~[A-Za-z0-9_~.\\-"
	    "]"
	    "{31,34})(?![A-Za-z0-9_~.\\-])",
	    .before = 8, .entropy = 3.5, .flags = LEAK_RF_WINDOW),
	RULE("azure-devops-pat", "Azure DevOps personal access token", "azdo",
	    B
	    "([A-Za-z0-9]{52}JQQJ9[9A-Za-z][A-Za-z0-9]{3,20}AZDO[A-Za-z0-9]{4}"
	    ")" EA,
	    .before = 80, .flags = LEAK_RF_WINDOW),
	RULE("azure-devops-pat-legacy", "Azure DevOps legacy PAT",
	    "azure_devops|azuredevops|ado_pat|devops_pat|azure-devops",
	    KV("azure[_\\-]?devops|ado_pat|devops_pat", "[a-z0-9]{52}"), CTX),
	RULE("azure-openai-key", "Azure OpenAI / Cognitive Services key",
	    "azure_openai|azureopenai|ocp-apim-subscription-key|cognitive",
	    KV("azure_?openai|ocp-apim-subscription-key|cognitive",
		"[a-f0-9]{32}|[A-Za-z0-9]{84}"),
	    CTXH),
	RULE("azure-cosmosdb-key", "Azure Cosmos DB account key", "cosmos",
	    KV("cosmos", "[A-Za-z0-9+/]{86}=="), .entropy = 4.0),

	/* ---- other clouds and hosting ---- */
	RULE("digitalocean-pat", "DigitalOcean personal access token",
	    "dop_v1_", B "(dop_v1_" HEX(64) ")" EA),
	RULE("digitalocean-oauth-token", "DigitalOcean OAuth token", "doo_v1_",
	    B "(doo_v1_" HEX(64) ")" EA),
	RULE("digitalocean-refresh-token", "DigitalOcean refresh token",
	    "dor_v1_", B "(dor_v1_" HEX(64) ")" EA),
	RULE("alibaba-access-key-id", "Alibaba Cloud AccessKey ID", "ltai",
	    B "(LTAI[A-Za-z0-9]{12,20})" EA, .entropy = 3.0),
	RULE("alibaba-secret-key", "Alibaba Cloud AccessKey secret",
	    "alibaba|aliyun|accesskeysecret|access_key_secret",
	    KV("alibaba|aliyun|access_?key_?secret", ALNUM(30)), CTX),
	RULE("tencent-secret-id", "Tencent Cloud SecretId", "akid",
	    B "(AKID[A-Za-z0-9]{32})" EA, .entropy = 3.5),
	RULE("tencent-secret-key", "Tencent Cloud SecretKey",
	    "tencent|secretkey|secret_key",
	    KV("tencent[A-Za-z_]{0,12}secret[_\\-]?key|tencentcloud",
		ALNUM(32)),
	    CTX),
	RULE("ibm-cloud-api-key", "IBM Cloud API key", "ibm",
	    KV("ibm", "[A-Za-z0-9_\\-]{44}"), CTX),
	RULE("oracle-cloud-fingerprint-key", "Oracle Cloud API signing key",
	    "ocid1.", B "(ocid1\\.credential\\.[a-z0-9.\\-]{20,120})" E),
	RULE("cloudflare-api-token", "Cloudflare API token",
	    "cloudflare|cf_api|cf-api|cf_token",
	    KV("cloudflare|cf[_\\-]api|cf_token", "[A-Za-z0-9_\\-]{40}"), CTX),
	RULE("cloudflare-global-api-key", "Cloudflare global API key",
	    "cloudflare|x-auth-key|cf_api_key",
	    KV("cloudflare|x-auth-key|cf_api_key", HEX(37)), CTXH),
	RULE("cloudflare-origin-ca-key", "Cloudflare Origin CA key", "v1.0-",
	    B "(v1\\.0-" HEX(24) "-" HEX(146) ")" EA, .after = 200),
	RULE("heroku-api-key", "Heroku API key", "heroku", KV("heroku", UUID),
	    CTXU),
	RULE("heroku-api-key-v2", "Heroku platform API token", "hrku-",
	    B "(HRKU-[A-Za-z0-9_\\-]{36,70})" E),
	RULE("flyio-access-token", "Fly.io access token",
	    "fo1_|fm1r_|fm1a_|fm2_",
	    B "((?:fo1_|fm1[ar]_|fm2_)[A-Za-z0-9+/=_\\-]{40,800})",
	    .after = 900, .entropy = 4.0),
	RULE("vercel-token", "Vercel access token", "vercel",
	    KV("vercel", "[A-Za-z0-9]{24}"), CTX),
	RULE("vercel-token-v2", "Vercel prefixed token",
	    "vcp_|vci_|vca_|vcr_|vck_", B "(vc[pcikar]_[A-Za-z0-9]{24,60})" EA,
	    .entropy = 3.5),
	RULE("netlify-token", "Netlify access token",
	    "nfp_|nfc_|nfo_|nfu_|nfb_", B "(nf[pcoub]_[A-Za-z0-9]{36,40})" EA,
	    .entropy = 3.5),
	RULE("netlify-token-legacy", "Netlify legacy token", "netlify",
	    KV("netlify", "[A-Za-z0-9_\\-]{40,46}"), CTX),
	RULE("linode-token", "Linode (Akamai) API token", "linode",
	    KV("linode", HEX(64)), CTXH),
	RULE("scaleway-access-key", "Scaleway access key", "scw",
	    B "(SCW[A-Z0-9]{17})" EA, .entropy = 3.0),
	RULE("scaleway-secret-key", "Scaleway secret key",
	    "scw_secret|scaleway", KV("scw_secret|scaleway", UUID), CTXU),
	RULE("render-api-key", "Render API key", "rnd_",
	    B "(rnd_[A-Za-z0-9]{32})" EA, .entropy = 3.5),
	RULE("railway-token", "Railway API token", "railway",
	    KV("railway", UUID), CTXU),
	RULE("supabase-access-token", "Supabase access token", "sbp_",
	    B "(sbp_(?:v0_)?" HEX(40) ")" EA),
	RULE("supabase-secret-key", "Supabase secret API key", "sb_secret_",
	    B "(sb_secret_[A-Za-z0-9_\\-]{30,60})" E),
	RULE("planetscale-token", "PlanetScale service token / password",
	    "pscale_tkn_|pscale_pw_|pscale_oauth_",
	    B "(pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.\\-]{32,64})" E),
	RULE("neon-api-key", "Neon API key", "napi_",
	    B "(napi_[a-z0-9]{64})" EA),
	RULE("hashicorp-vault-token", "HashiCorp Vault token", "hvs.|hvb.|hvr.",
	    B "(hv[sbr]\\.[A-Za-z0-9_\\-]{24,200})" E, .entropy = 3.5),
	RULE("hashicorp-vault-token-legacy", "HashiCorp Vault legacy token",
	    "vault", KV("vault", "s\\.[A-Za-z0-9]{24}"), CTX),
	RULE("terraform-cloud-token", "Terraform Cloud / Enterprise API token",
	    "atlasv1",
	    B "([A-Za-z0-9]{14}\\.atlasv1\\.[A-Za-z0-9_=\\-]{60,70})" E,
	    .before = 16, .flags = LEAK_RF_WINDOW),
	RULE("doppler-token", "Doppler token",
	    "dp.pt.|dp.st.|dp.sa.|dp.ct.|dp.scim.|dp.audit.",
	    B "(dp\\.(?:pt|st|sa|ct|scim|audit)\\.[A-Za-z0-9_.\\-]{40,60})" E),
	RULE("pulumi-access-token", "Pulumi access token", "pul-",
	    B "(pul-" HEX(40) ")" EA),
	RULE("databricks-token", "Databricks personal access token", "dapi",
	    B "(dapi" HEX(32) "(?:-\\d)?)" EA),
	RULE("databricks-oauth-secret",
	    "Databricks service principal OAuth secret", "\\bdose",
	    B "(dose" HEX(32) ")" EA, .entropy = 3.0),
	RULE("snowflake-password", "Snowflake account password", "snowflake",
	    KV("snowflake[A-Za-z_]{0,12}pass(?:word)?", "[^\\s\"'`]{8,64}"),
	    .flags = LEAK_RF_VALUE | LEAK_RF_PASSWORD),
	RULE("confluent-api-secret", "Confluent Cloud API secret", "confluent",
	    KV("confluent", "[A-Za-z0-9+/]{64}"), .entropy = 4.0),
	RULE("mongodb-atlas-key", "MongoDB Atlas private API key",
	    "atlas_private|mongodb_atlas|atlas_api",
	    KV("atlas_private|mongodb_atlas|atlas_api", UUID), CTXU),
	RULE("openshift-token", "OpenShift user token", "sha256~",
	    B "(sha256~[A-Za-z0-9_\\-]{43})" E, .before = 4),
	RULE("kubernetes-sa-token", "Kubernetes service account token (JWT)",
	    "kubernetes.io/serviceaccount",
	    "(eyJ[A-Za-z0-9_\\-]{10,}\\.eyJ[A-Za-z0-9_\\-]{10,}\\."
	    "[A-Za-z0-9_\\-]{10,})",
	    .before = 2000, .flags = LEAK_RF_WINDOW),

	/* ---- source hosting and CI ---- */
	RULE("github-pat", "GitHub personal access token (classic)", "ghp_",
	    B "(ghp_[A-Za-z0-9]{36})" EA, .entropy = 3.5),
	RULE("github-fine-grained-pat", "GitHub fine-grained PAT",
	    "github_pat_", B "(github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})" EA),
	RULE("github-oauth-token", "GitHub OAuth access token", "gho_",
	    B "(gho_[A-Za-z0-9]{36})" EA, .entropy = 3.5),
	RULE("github-user-to-server-token", "GitHub App user-to-server token",
	    "ghu_", B "(ghu_[A-Za-z0-9]{36})" EA, .entropy = 3.5),
	RULE("github-app-token", "GitHub App installation token", "ghs_",
	    B "(ghs_[A-Za-z0-9]{36})" EA, .entropy = 3.5),
	RULE("github-refresh-token", "GitHub refresh token", "ghr_",
	    B "(ghr_[A-Za-z0-9]{36,76})" EA, .entropy = 3.5),
	RULE("github-oauth-client-secret", "GitHub OAuth app client secret",
	    "github",
	    KV("github[A-Za-z_]{0,10}(?:client)?[_\\-]?secret", HEX(40)), CTXH),
	RULE("gitlab-pat", "GitLab personal access token", "glpat-",
	    B "(glpat-[A-Za-z0-9_\\-.]{20,80})" E),
	RULE("gitlab-deploy-token", "GitLab deploy token", "gldt-",
	    B "(gldt-[A-Za-z0-9_\\-]{20,60})" E),
	RULE("gitlab-runner-token", "GitLab runner authentication token",
	    "glrt-", B "(glrt-[A-Za-z0-9_\\-.]{20,80})" E),
	RULE("gitlab-runner-registration-token",
	    "GitLab runner registration token", "gr1348941",
	    B "(GR1348941[A-Za-z0-9_\\-]{20})" E),
	RULE("gitlab-pipeline-trigger-token", "GitLab pipeline trigger token",
	    "glptt-", B "(glptt-[A-Za-z0-9_\\-]{20,40})" E),
	RULE("gitlab-feed-token", "GitLab feed token", "glft-",
	    B "(glft-[A-Za-z0-9_\\-]{20,40})" E),
	RULE("gitlab-incoming-mail-token", "GitLab incoming mail token",
	    "glimt-", B "(glimt-[A-Za-z0-9_\\-]{25,40})" E),
	RULE("gitlab-agent-token", "GitLab agent for Kubernetes token",
	    "glagent-", B "(glagent-[A-Za-z0-9_\\-]{50,80})" E),
	RULE("gitlab-oauth-secret", "GitLab OAuth application secret", "gloas-",
	    B "(gloas-[A-Za-z0-9_\\-]{64})" E),
	RULE("gitlab-ci-job-token", "GitLab CI/CD job token", "glcbt-",
	    B "(glcbt-[A-Za-z0-9_\\-]{20,80})" E),
	RULE("gitlab-scim-token", "GitLab SCIM token", "glsoat-",
	    B "(glsoat-[A-Za-z0-9_\\-]{20,40})" E),
	RULE("gitlab-feature-flag-token", "GitLab feature flag client token",
	    "glffct-", B "(glffct-[A-Za-z0-9_\\-]{20,40})" E),
	RULE("gitlab-session-cookie", "GitLab session cookie",
	    "_gitlab_session=", "_gitlab_session=([0-9a-z]{32})" EA),
	RULE("bitbucket-app-password", "Bitbucket / Atlassian app password",
	    "atbb", B "(ATBB[A-Za-z0-9_=.\\-]{28,40})" E, .entropy = 3.5),
	RULE("bitbucket-access-token", "Bitbucket repository access token",
	    "atctt3", B "(ATCTT3xFfGN0[A-Za-z0-9_=\\-]{100,220})",
	    .after = 300),
	RULE("bitbucket-client-secret", "Bitbucket OAuth consumer secret",
	    "bitbucket",
	    KV("bitbucket[A-Za-z_]{0,10}secret", "[A-Za-z0-9_\\-]{32,64}"),
	    CTX),
	RULE("atlassian-api-token", "Atlassian (Jira, Confluence) API token",
	    "atatt3", B "(ATATT3[A-Za-z0-9_=\\-]{150,220})", .after = 300),
	RULE("atlassian-api-token-legacy", "Atlassian legacy API token",
	    "atlassian|jira|confluence",
	    KV("atlassian|jira|confluence", "[A-Za-z0-9]{24}"), CTX),
	RULE("gitea-token", "Gitea / Forgejo access token", "gitea|forgejo",
	    KV("gitea|forgejo", HEX(40)), CTXH),
	RULE("circleci-token", "CircleCI personal or project API token",
	    "ccipat_|cciprj_",
	    B "(CCIP(?:AT|RJ)_[A-Za-z0-9]{22}_" HEX(40) ")" EA),
	RULE("circleci-token-legacy", "CircleCI API token", "circle",
	    KV("circle(?:ci)?", HEX(40)), CTXH),
	RULE("travis-ci-token", "Travis CI API token", "travis",
	    KV("travis", "[A-Za-z0-9_\\-]{22}"), CTX),
	RULE("buildkite-token", "Buildkite agent / API token", "bkua_",
	    B "(bkua_" HEX(40) ")" EA),
	RULE("drone-ci-token", "Drone CI token", "drone",
	    KV("drone", "[A-Za-z0-9]{32}"), CTX),
	RULE("codecov-token", "Codecov upload token", "codecov",
	    KV("codecov", UUID "|" HEX(32)), CTXU),
	RULE("codecov-cli-token", "Codecov upload token on the command line",
	    "codecov",
	    "\\bcodecov\\b[^\\n|;&]{0,200}?\\s(?:-t|--token)(?:\\s+|=)[\"']?"
	    "(" UUID "|" HEX(32) ")" EA,
	    .after = 400, CTXU),
	RULE("sonarqube-token", "SonarQube / SonarCloud token",
	    "squ_|sqp_|sqa_", B "(sq[upa]_" HEX(40) ")" EA),
	RULE("snyk-token", "Snyk API token", "snyk", KV("snyk", UUID), CTXU),
	RULE("sourcegraph-token", "Sourcegraph access token", "sgp_",
	    B "(sgp_(?:[a-f0-9]{16}_)?" HEX(40) ")" EA),
	RULE("jenkins-api-token", "Jenkins API token", "jenkins",
	    KV("jenkins", "11" HEX(32)), CTXH),

	/* ---- AI providers ---- */
	RULE("openai-api-key", "OpenAI API key", "t3blbkfj",
	    B "(sk-(?:(?:proj|svcacct|admin|None)-)?[A-Za-z0-9_\\-]{16,160}"
	      "T3BlbkFJ[A-Za-z0-9_\\-]{16,160})" E,
	    .before = 200, .after = 200, .flags = LEAK_RF_WINDOW),
	RULE("openai-project-key", "OpenAI project / service account key",
	    "sk-proj-|sk-svcacct-|sk-admin-|sk-none-",
	    B "(sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_\\-]{40,200})" E,
	    .entropy = 4.0),
	RULE("anthropic-api-key", "Anthropic API key", "sk-ant-api",
	    B "(sk-ant-api\\d\\d-[A-Za-z0-9_\\-]{80,110})" E),
	RULE("anthropic-admin-key", "Anthropic admin API key", "sk-ant-admin",
	    B "(sk-ant-admin\\d\\d-[A-Za-z0-9_\\-]{80,110})" E),
	RULE("anthropic-oauth-token", "Anthropic OAuth token",
	    "sk-ant-oat|sk-ant-ort",
	    B "(sk-ant-o[ar]t\\d\\d-[A-Za-z0-9_\\-]{80,110})" E),
	RULE("anthropic-session-key", "Claude web session key", "sk-ant-sid",
	    B "(sk-ant-sid\\d\\d-[A-Za-z0-9_\\-]{80,120})" E),
	RULE("openrouter-api-key", "OpenRouter API key", "sk-or-v1-",
	    B "(sk-or-v1-" HEX(64) ")" EA),
	RULE("huggingface-token", "Hugging Face access token", "hf_",
	    B "(hf_[A-Za-z0-9]{34,40})" EA, .entropy = 3.5),
	RULE("huggingface-org-token", "Hugging Face organization token",
	    "api_org_", B "(api_org_[A-Za-z0-9]{34})" EA, .entropy = 3.5),
	RULE("groq-api-key", "Groq API key", "gsk_",
	    B "(gsk_[A-Za-z0-9]{52})" EA),
	RULE("replicate-api-token", "Replicate API token", "r8_",
	    B "(r8_[A-Za-z0-9]{37})" EA, .entropy = 3.5),
	RULE("perplexity-api-key", "Perplexity API key", "pplx-",
	    B "(pplx-[A-Za-z0-9]{48})" EA),
	RULE("xai-api-key", "xAI API key", "xai-",
	    B "(xai-[A-Za-z0-9]{70,90})" EA),
	RULE("langsmith-api-key", "LangSmith API key", "lsv2_",
	    B "(lsv2_(?:pt|sk)_" HEX(32) "_" HEX(10) ")" EA),
	RULE("pinecone-api-key", "Pinecone API key", "pcsk_",
	    B "(pcsk_[A-Za-z0-9_]{50,90})" EA),
	RULE("fireworks-api-key", "Fireworks AI API key", "fw_",
	    B "(fw_[A-Za-z0-9]{24,40})" EA, .entropy = 3.5),
	RULE("together-api-key", "Together AI API key", "tgp_v1_|together",
	    B "(tgp_v1_[A-Za-z0-9_\\-]{43})|" KV("together", HEX(64)), CTXH),
	RULE("elevenlabs-api-key", "ElevenLabs API key",
	    "\\bsk_|elevenlabs|xi-api-key",
	    B "(sk_" HEX(48) ")" EA "|" KV("elevenlabs|xi-api-key", HEX(32)),
	    CTXH),
	RULE("cohere-api-key", "Cohere API key", "cohere|co_api_key",
	    KV("cohere|co_api_key", "[A-Za-z0-9]{40}"), CTX),
	RULE("mistral-api-key", "Mistral AI API key", "mistral",
	    KV("mistral", "[A-Za-z0-9]{32}"), CTX),
	RULE("deepseek-api-key", "DeepSeek API key", "deepseek",
	    KV("deepseek", "sk-" HEX(32)), CTXH),
	RULE("ai21-api-key", "AI21 Labs API key", "ai21",
	    KV("ai21", "[A-Za-z0-9]{32}|" UUID), CTXU),
	RULE("assemblyai-api-key", "AssemblyAI API key",
	    "assemblyai|assembly_ai", KV("assembly_?ai", HEX(32)), CTXH),
	RULE("deepgram-api-key", "Deepgram API key", "deepgram",
	    KV("deepgram", HEX(40)), CTXH),
	RULE("wandb-api-key", "Weights & Biases API key", "wandb",
	    KV("wandb", HEX(40) "|[a-z0-9\\-]{0,10}v1_[A-Za-z0-9]{70,90}"),
	    CTXH),
	RULE("voyage-api-key", "Voyage AI API key", "pa-|voyage",
	    "(?:voyage|VOYAGE)[A-Za-z_]{0,12}" Q "?\\s{0,4}[=:]\\s{0,4}" Q "?"
	    "(pa-[A-Za-z0-9_\\-]{40,50})" E,
	    .before = 40),
	RULE("stability-api-key", "Stability AI API key", "stability",
	    KV("stability", "sk-[A-Za-z0-9]{48}"), CTX),
	RULE("sk-hex-api-key",
	    "API key in the sk- and 32 hex digits format (DeepSeek, DashScope)",
	    "\\bsk-", B "(sk-" HEX(32) ")" EA, .entropy = 3.0,
	    .flags = LEAK_RF_GENERIC),
	RULE("sk-api-key", "API key in the sk- format (OpenAI-compatible)",
	    "\\bsk-", B "(sk-[A-Za-z0-9]{32,64})" EA, .entropy = 4.0,
	    .flags = LEAK_RF_GENERIC),

	/* ---- payments and commerce ---- */
	/* Paystack secret keys share the sk_live_/sk_test_ prefix but are
	 * exactly 40 lower-case hex digits after it (paystack-secret-key);
	 * Stripe's are base62, which is never that. */
	/* Clerk secret keys share Stripe's sk_live_/sk_test_ prefix and
	 * alphabet: only the name next to the value tells them apart, so this
	 * rule comes first and wins a tie with stripe-secret-key. */
	RULE("clerk-secret-key", "Clerk secret key", "clerk_|clerksecret",
	    KV("clerk", "sk_(?:live|test)_[A-Za-z0-9]{24,100}"), CTX,
	    .before = 4),
	RULE("stripe-secret-key", "Stripe secret key", "sk_live_|sk_test_",
	    B "(sk_(?:live|test)_(?!" HEX(40) EA ")[A-Za-z0-9]{24,247})" EA,
	    .entropy = 3.5, .allow = DOC_EXAMPLES),
	RULE("stripe-restricted-key", "Stripe restricted key",
	    "rk_live_|rk_test_", B "(rk_(?:live|test)_[A-Za-z0-9]{24,247})" EA,
	    .entropy = 3.5),
	RULE("stripe-webhook-secret", "Stripe webhook signing secret", "whsec_",
	    B "(whsec_[A-Za-z0-9+/=]{32,90})" E, .entropy = 3.5),
	RULE("square-access-token", "Square access token", "eaaa|sq0atp-",
	    B "(EAAA[A-Za-z0-9_\\-]{60}|sq0atp-[A-Za-z0-9_\\-]{22})" E,
	    .entropy = 3.5),
	RULE("square-oauth-secret", "Square OAuth secret", "sq0csp-",
	    B "(sq0csp-[A-Za-z0-9_\\-]{43})" E),
	RULE("braintree-access-token", "PayPal Braintree access token",
	    "access_token$",
	    "(access_token\\$(?:production|sandbox)\\$[a-z0-9]{16}\\$" HEX(
		32) ")" EA),
	RULE("paypal-client-secret", "PayPal client secret", "paypal",
	    KV("paypal[A-Za-z_]{0,10}secret", "[A-Za-z0-9_\\-]{80}"), CTX),
	RULE("shopify-access-token", "Shopify access token",
	    "shpat_|shpca_|shppa_", B "(shp(?:at|ca|pa)_" UHEX(32) ")" EA),
	RULE("shopify-shared-secret", "Shopify app shared secret", "shpss_",
	    B "(shpss_" UHEX(32) ")" EA),
	RULE("midtrans-server-key", "Midtrans server key", "mid-server-",
	    "(?<![A-Za-z0-9])(Mid-server-[A-Za-z0-9_\\-]{20,40})" E),
	RULE("flutterwave-secret-key", "Flutterwave secret key", "flwseck",
	    B "(FLWSECK(?:_TEST)?-" HEX(32) "-X)" EA),
	RULE("flutterwave-encryption-key", "Flutterwave encryption key",
	    "flwseck_test", B "(FLWSECK_TEST" HEX(12) ")" EA),
	RULE("plaid-access-token", "Plaid access token",
	    "access-sandbox-|access-development-|access-production-",
	    B "(access-(?:sandbox|development|production)-" UUID ")" EA),
	RULE("plaid-secret", "Plaid API secret", "plaid",
	    KV("plaid[A-Za-z_]{0,10}secret", HEX(30)), CTXH),
	RULE("coinbase-api-secret", "Coinbase API secret", "coinbase",
	    KV("coinbase", "[A-Za-z0-9+/]{64}={0,2}|" ALNUM(32)), CTX),
	RULE("razorpay-secret", "Razorpay key secret", "razorpay",
	    KV("razorpay[A-Za-z_]{0,10}secret", "[A-Za-z0-9]{24}"), CTX),
	RULE("adyen-api-key", "Adyen API key", "aqe",
	    B "(AQE[A-Za-z0-9]{3}[A-Za-z0-9+/=_\\-]{150,300})", .after = 400,
	    .entropy = 4.0),
	RULE("gocardless-token", "GoCardless access token", "gocardless",
	    "(?i:gocardless)[A-Za-z_]{0,20}" Q "?\\s{0,4}[=:]\\s{0,4}" Q "?"
	    "((?:live|sandbox)_[A-Za-z0-9_\\-=]{40})" E,
	    .before = 60),
	RULE("lemonsqueezy-api-key", "Lemon Squeezy API key", "lemon",
	    KV("lemon_?squeezy",
		"eyJ[A-Za-z0-9_\\-]{10,}\\.eyJ[A-Za-z0-9_\\-]{10,}\\."
		"[A-Za-z0-9_\\-]{10,}"),
	    CTX, .after = 1500),
	RULE("easypost-api-key", "EasyPost API key", "ezak|ezt",
	    B "(EZ[AT]K" HEX(54) ")" EA),
	RULE("shippo-api-token", "Shippo API token",
	    "shippo_live_|shippo_test_",
	    B "(shippo_(?:live|test)_" HEX(40) ")" EA),
	RULE("duffel-api-token", "Duffel API token",
	    "duffel_test_|duffel_live_",
	    B "(duffel_(?:test|live)_[A-Za-z0-9_\\-=]{43})" E),

	/* ---- messaging and communications ---- */
	RULE("slack-bot-token", "Slack bot token", "xoxb-",
	    B "(xoxb-[0-9]{10,13}-[0-9]{10,13}-[A-Za-z0-9]{24,34})" EA),
	RULE("slack-user-token", "Slack user token", "xoxp-",
	    B "(xoxp-[0-9]{10,13}-[0-9]{10,13}-[0-9]{10,13}-[a-f0-9]{32})" EA),
	RULE("slack-legacy-token", "Slack legacy / workspace token",
	    "xoxa-|xoxo-|xoxs-|xoxr-",
	    B "(xox[aosr]-(?:\\d+-){1,3}[A-Za-z0-9]{10,48})" EA),
	RULE("slack-app-token", "Slack app-level token", "xapp-",
	    B "(xapp-\\d-[A-Z0-9]{9,12}-\\d{10,14}-[a-f0-9]{40,64})" EA),
	RULE("slack-config-token", "Slack configuration / refresh token",
	    "xoxe.xox|xoxe-",
	    B "(xoxe(?:\\.xox[bp])?-\\d-[A-Za-z0-9]{100,170})" EA,
	    .after = 260),
	/* services/T/B/secret; workflows/T/A/<digits>/secret and
	 * triggers/T/<digits>/secret (Workflow Builder) */
	RULE("slack-webhook-url", "Slack incoming webhook URL",
	    "hooks.slack.com",
	    "(https?://hooks\\.slack\\.com/(?:services|workflows|triggers)/"
	    "[A-Za-z0-9_]{8,12}/(?:[A-Za-z0-9_]{8,12}/)?(?:[0-9]{10,24}/)?"
	    "[A-Za-z0-9_]{20,48})",
	    .before = 10, .flags = LEAK_RF_WINDOW),
	RULE("discord-webhook-url", "Discord webhook URL", "discord",
	    "(https?://(?:ptb\\.|canary\\.)?discord(?:app)?\\.com/api/"
	    "webhooks/\\d{17,20}/[A-Za-z0-9_\\-]{60,70})",
	    .before = 30, .flags = LEAK_RF_WINDOW),
	RULE("discord-bot-token", "Discord bot token", "discord|bot ",
	    "(?<![A-Za-z0-9_\\-.])([MNO][A-Za-z0-9_\\-]{23,27}\\.[A-Za-z0-9_\\-"
	    "]"
	    "{6}\\.[A-Za-z0-9_\\-]{27,40})" E,
	    .before = 20, .after = 120, .flags = LEAK_RF_WINDOW),
	RULE("discord-client-secret", "Discord client secret", "discord",
	    KV("discord[A-Za-z_]{0,12}secret", "[A-Za-z0-9_\\-]{32}"), CTX),
	RULE("telegram-bot-token", "Telegram bot API token", ":aa",
	    "(?<![0-9])([0-9]{8,10}:AA[A-Za-z0-9_\\-]{33})" E, .before = 12,
	    .flags = LEAK_RF_WINDOW),
	RULE("twilio-api-key", "Twilio API key SID",
	    "\\bsk0|\\bsk1|\\bsk2|\\bsk3|\\bsk4|\\bsk5|\\bsk6|\\bsk7|\\bsk8|"
	    "\\bsk9|"
	    "\\bska|\\bskb|\\bskc|\\bskd|\\bske|\\bskf",
	    B "(SK" UHEX(32) ")" EA, .entropy = 3.0),
	RULE("twilio-auth-token", "Twilio auth token", "twilio",
	    KV("twilio", HEX(32)), CTXH),
	RULE("sendgrid-api-key", "SendGrid API key", "\\bsg.",
	    B "(SG\\.[A-Za-z0-9_\\-]{22}\\.[A-Za-z0-9_\\-]{43})" E),
	RULE("mailgun-api-key", "Mailgun private API key", "\\bkey-|mailgun",
	    B "(key-" HEX(32) ")" EA
			      "|" KV("mailgun", HEX(32) "-" HEX(8) "-" HEX(8)),
	    CTXH),
	RULE("mailgun-signing-key", "Mailgun webhook signing key", "mailgun",
	    KV("mailgun[A-Za-z_]{0,12}sign", HEX(32)), CTXH),
	RULE("mailchimp-api-key", "Mailchimp API key", "-us",
	    "(?<![A-Za-z0-9])(" HEX(32) "-us[0-9]{1,2})" EA, .before = 34,
	    .flags = LEAK_RF_WINDOW),
	RULE("mandrill-api-key", "Mandrill (Mailchimp Transactional) API key",
	    "mandrill|mailchimp",
	    KV("mandrill|mailchimp", "(?:md-)?[A-Za-z0-9_\\-]{22}"), CTX),
	RULE("brevo-api-key", "Brevo (Sendinblue) API key",
	    "xkeysib-|xsmtpsib-",
	    B "(x(?:keysib|smtpsib)-" HEX(64) "-[A-Za-z0-9]{16})" EA),
	RULE("postmark-server-token", "Postmark server token",
	    "postmark|x-postmark-server-token", KV("postmark", UUID), CTXU),
	RULE("mailjet-secret", "Mailjet API secret", "mailjet",
	    KV("mailjet", HEX(32)), CTXH),
	RULE("sparkpost-api-key", "SparkPost API key", "sparkpost",
	    KV("sparkpost", HEX(40)), CTXH),
	RULE("messagebird-api-key", "MessageBird API key",
	    "messagebird|message_bird|message-bird",
	    KV("message[_\\-]?bird", "[A-Za-z0-9]{25}"), CTX),
	RULE("vonage-api-secret", "Vonage (Nexmo) API secret", "vonage|nexmo",
	    KV("vonage|nexmo", "[A-Za-z0-9]{16}"), CTX),
	RULE("plivo-auth-token", "Plivo auth token", "plivo",
	    KV("plivo", "[A-Za-z0-9]{40}"), CTX),
	RULE("teams-webhook-url", "Microsoft Teams incoming webhook URL",
	    "webhook.office.com",
	    "(https://[a-z0-9\\-]+\\.webhook\\.office\\.com/webhookb2/"
	    "[A-Za-z0-9@\\-]{36,90}/IncomingWebhook/[A-Za-z0-9]{32}/"
	    "[A-Za-z0-9\\-]{36}(?:/[A-Za-z0-9_\\-]{40,50})?)",
	    .before = 40, .after = 400, .flags = LEAK_RF_WINDOW),
	RULE("mattermost-token", "Mattermost access token", "mattermost",
	    KV("mattermost", "[a-z0-9]{26}"), CTX),
	/* an incoming webhook of any Mattermost server: /hooks/ and the
	 * 26-byte id */
	RULE("mattermost-webhook-url", "Mattermost incoming webhook URL",
	    "/hooks/",
	    "https?://[A-Za-z0-9.\\-]{1,253}(?::\\d{1,5})?/hooks/([a-z0-9]{26})"
	    "(?![A-Za-z0-9_\\-])",
	    .entropy = 3.5, .before = 280, .flags = LEAK_RF_WINDOW),
	RULE("intercom-token", "Intercom access token", "intercom",
	    KV("intercom", "[A-Za-z0-9=_\\-]{60}"), CTX),
	RULE("sendbird-token", "Sendbird API token", "sendbird",
	    KV("sendbird", HEX(40)), CTXH),
	RULE("pusher-secret", "Pusher app secret", "pusher",
	    KV("pusher[A-Za-z_]{0,10}secret", "[a-f0-9]{20}"), CTXH),
	RULE("zendesk-api-token", "Zendesk API token", "zendesk",
	    KV("zendesk", "[A-Za-z0-9]{40}"), CTX),
	RULE("freshdesk-api-key", "Freshdesk API key", "freshdesk",
	    KV("freshdesk", "[A-Za-z0-9]{20}"), CTX),

	/* ---- social and platform APIs ---- */
	RULE("twitter-bearer-token", "X (Twitter) bearer token",
	    "aaaaaaaaaaaaaaaaaaaaa",
	    "(AAAAAAAAAAAAAAAAAAAAA[A-Za-z0-9%]{40,120})" EA, .before = 4),
	RULE("twitter-api-secret", "X (Twitter) API / access secret",
	    "twitter|consumer_secret",
	    KV("twitter[A-Za-z_]{0,16}secret|consumer_secret",
		"[A-Za-z0-9]{45,50}"),
	    CTX),
	RULE("facebook-access-token", "Facebook / Meta access token", "\\beaa",
	    B "(EAA[A-Za-z0-9]{90,300})" EA, .entropy = 4.0, .after = 320),
	RULE("facebook-app-secret", "Facebook app secret", "facebook|fb_app",
	    KV("facebook|fb_app", HEX(32)), CTXH),
	RULE("instagram-token", "Instagram Graph API token", "igqv",
	    B "(IGQV[A-Za-z0-9_\\-]{100,300})" E, .after = 320),
	RULE("linkedin-client-secret", "LinkedIn client secret", "linkedin",
	    KV("linkedin", "[A-Za-z0-9]{16}"), CTX),
	RULE("twitch-api-token", "Twitch API token", "twitch",
	    KV("twitch", "[a-z0-9]{30}"), CTX),
	RULE("dropbox-api-token", "Dropbox access token", "sl.|dropbox",
	    B "(sl\\.(?:u\\.)?[A-Za-z0-9_\\-]{130,1400})" E
	      "|" KV("dropbox", "[A-Za-z0-9_\\-]{64}"),
	    CTX, .after = 1500),
	RULE("spotify-client-secret", "Spotify client secret", "spotify",
	    KV("spotify", HEX(32)), CTXH),
	RULE("reddit-client-secret", "Reddit client secret", "reddit",
	    KV("reddit", "[A-Za-z0-9_\\-]{27,30}"), CTX),
	RULE("youtube-oauth-secret", "YouTube data API secret", "youtube",
	    KV("youtube", "[A-Za-z0-9_\\-]{24,40}"), CTX),
	RULE("mapbox-secret-token", "Mapbox secret access token", "sk.eyj",
	    B "(sk\\.eyJ[A-Za-z0-9_\\-]{40,200}\\.[A-Za-z0-9_\\-]{20,40})" E),
	RULE("zoom-client-secret", "Zoom client secret", "zoom",
	    KV("zoom", "[A-Za-z0-9]{32}"), CTX),
	RULE("okta-api-token", "Okta API token", "okta|ssws",
	    KV("okta|SSWS", "00[A-Za-z0-9_\\-]{40}"), CTX),
	RULE("auth0-client-secret", "Auth0 client secret", "auth0",
	    KV("auth0", "[A-Za-z0-9_\\-]{64}"), CTX),
	RULE("firebase-cloud-messaging-key", "Firebase Cloud Messaging key",
	    "aaaa",
	    B "(AAAA[A-Za-z0-9_\\-]{7}:APA91b[A-Za-z0-9_\\-]{130,150})" E,
	    .before = 4, .after = 200),
	RULE("algolia-admin-key", "Algolia admin API key", "algolia",
	    KV("algolia", HEX(32)), CTXH),
	RULE("contentful-token", "Contentful delivery / management token",
	    "cfpat-|contentful",
	    B "(CFPAT-[A-Za-z0-9_\\-]{43})" E
	      "|" KV("contentful", "[A-Za-z0-9_\\-]{43}"),
	    CTX),
	RULE("airtable-pat", "Airtable personal access token", "pat",
	    B "(pat[A-Za-z0-9]{14}\\." HEX(64) ")" EA, .before = 4,
	    .pre = pre_airtable_pat),
	RULE("airtable-api-key", "Airtable legacy API key", "airtable",
	    KV("airtable", "key[A-Za-z0-9]{14}"), .entropy = 3.0),
	RULE("notion-token", "Notion integration token", "secret_|ntn_",
	    B "(secret_[A-Za-z0-9]{43}|ntn_[0-9]{11}[A-Za-z0-9]{35})" EA,
	    .entropy = 3.5),
	RULE("linear-api-key", "Linear API key or OAuth token",
	    "lin_api_|lin_oauth_",
	    B "(lin_api_[A-Za-z0-9]{40}|lin_oauth_" HEX(64) ")" EA),
	RULE("asana-pat", "Asana personal access token", "asana",
	    KV("asana",
		"[0-9]/[0-9]{14,16}:" HEX(32) "|[0-9]/[0-9]{14,16}/"
					      "[0-9]{16}:" HEX(32)),
	    CTX),
	RULE("clickup-token", "ClickUp personal token", "pk_",
	    B "(pk_[0-9]{6,10}_[A-Z0-9]{32})" EA),
	RULE("monday-token", "monday.com API token", "monday",
	    KV("monday",
		"eyJ[A-Za-z0-9_\\-]{10,}\\.eyJ[A-Za-z0-9_\\-]{10,}\\."
		"[A-Za-z0-9_\\-]{10,}"),
	    CTX, .after = 600),
	RULE("trello-token", "Trello API token", "trello",
	    KV("trello", "[a-f0-9]{64}|ATTA[A-Za-z0-9]{60,70}"), CTXH),
	RULE("hubspot-token", "HubSpot private app token", "\\bpat-",
	    B "(pat-(?:na|eu|ap)[12]-" UUID ")" EA),
	RULE("hubspot-api-key", "HubSpot legacy API key", "hubspot|hapikey",
	    KV("hubspot|hapikey", UUID), CTXU),
	RULE("typeform-token", "Typeform personal token", "tfp_",
	    B "(tfp_[A-Za-z0-9_\\-.=]{59})" E),
	RULE("figma-token", "Figma personal access token", "figd_",
	    B "(figd_[A-Za-z0-9_\\-]{40})" E),
	RULE("frameio-token", "Frame.io API token", "fio-u-",
	    B "(fio-u-[A-Za-z0-9_\\-=]{64})" E),
	RULE("postman-api-key", "Postman API key", "pmak-",
	    B "(PMAK-" HEX(24) "-" HEX(34) ")" EA),
	RULE("readme-api-key", "ReadMe API key", "rdme_",
	    B "(rdme_[a-z0-9]{70})" EA),
	RULE("launchdarkly-token", "LaunchDarkly access token",
	    "api-|launchdarkly",
	    B "(api-" UUID ")" EA "|" KV("launchdarkly", "(?:sdk|mob)-" UUID),
	    CTXU, .before = 4),
	RULE("rapidapi-key", "RapidAPI key", "rapidapi",
	    KV("rapidapi", "[A-Za-z0-9_\\-]{50}"), CTX),
	RULE("nytimes-api-key", "New York Times API key", "nytimes|nyt_",
	    KV("nytimes|nyt_", "[A-Za-z0-9]{32}"), CTX),
	RULE("etsy-api-key", "Etsy API key", "etsy", KV("etsy", "[a-z0-9]{24}"),
	    CTX),
	RULE("lob-api-key", "Lob API key", "lob",
	    "(?i:lob)[A-Za-z_]{0,16}" Q "?\\s{0,4}[=:]\\s{0,4}" Q "?"
	    "((?:live|test)_[a-f0-9]{35})" EA,
	    .before = 40),
	RULE("yandex-api-key", "Yandex API key", "aqvn",
	    B "(AQVN[A-Za-z0-9_\\-]{35,38})" E),
	RULE("yandex-access-token", "Yandex OAuth or IAM token", "y0_|t1.",
	    B
	    "(y[0-3]_[A-Za-z0-9_\\-]{55}|"
	    "t1\\.[A-Za-z0-9_\\-]{1,64}={0,2}\\.[A-Za-z0-9_\\-]{86}={0,2})" E),
	RULE("beamer-api-token", "Beamer API token", "beamer",
	    "(?i:beamer)[A-Za-z_]{0,16}" Q "?\\s{0,4}[=:]\\s{0,4}" Q "?"
	    "(b_[A-Za-z0-9=_\\-]{44})" E,
	    .before = 40),

	/* ---- observability ---- */
	RULE("datadog-api-key", "Datadog API / application key",
	    "datadog|dd_api_key|dd_app_key|dd-api-key|dd-application-key",
	    KV("datadog|dd[_\\-]api[_\\-]?key|dd[_\\-]app(?:lication)?[_\\-]"
	       "key",
		HEX(40) "|" HEX(32)),
	    CTXH),
	RULE("newrelic-user-key", "New Relic user API key", "nrak-",
	    B "(NRAK-[A-Z0-9]{27})" EA),
	RULE("newrelic-insert-key", "New Relic insights insert key", "nrii-",
	    B "(NRII-[A-Za-z0-9_\\-]{32})" E),
	RULE("newrelic-query-key", "New Relic insights query key", "nriq-",
	    B "(NRIQ-[A-Za-z0-9_\\-]{32})" E),
	RULE("newrelic-browser-key", "New Relic browser API key", "nrjs-",
	    B "(NRJS-" HEX(19) ")" EA),
	RULE("newrelic-rest-key", "New Relic REST API key", "nrra-",
	    B "(NRRA-" HEX(42) ")" EA),
	RULE("newrelic-license-key", "New Relic ingest license key", "nral",
	    B "(" HEX(36) "NRAL)" EA, .before = 40, .flags = LEAK_RF_WINDOW),
	RULE("sentry-auth-token", "Sentry auth token", "sntrys_|sntryu_|sentry",
	    B "(sntrys_eyJ[A-Za-z0-9+/=_\\-]{60,300}|sntryu_" HEX(
		64) ")" E
		    "|" KV("sentry[A-Za-z_]{0,10}(?:auth|token)", HEX(64)),
	    CTXH, .after = 400),
	RULE("grafana-cloud-token", "Grafana Cloud API token", "glc_",
	    B "(glc_[A-Za-z0-9+/]{32,400}={0,2})", .after = 420),
	RULE("grafana-service-account-token", "Grafana service account token",
	    "glsa_", B "(glsa_[A-Za-z0-9]{32}_" UHEX(8) ")" EA),
	RULE("grafana-api-key", "Grafana legacy API key", "eyjrijoi",
	    B "(eyJrIjoi[A-Za-z0-9+/=]{60,100})", .after = 120),
	RULE("dynatrace-token", "Dynatrace API token", "dt0c01.|dt0s01.",
	    B "(dt0[cs]01\\.[A-Z0-9]{24}\\.[A-Z0-9]{64})" EA),
	RULE("honeycomb-api-key", "Honeycomb API key", "honeycomb|x-honeycomb",
	    KV("honeycomb",
		"[A-Za-z0-9]{22}|[A-Za-z0-9]{32}|hc[a-z]{2,3}_[A-Za-z0-9]{58}"),
	    CTX),
	RULE("pagerduty-token", "PagerDuty API token", "pagerduty",
	    KV("pagerduty", "[A-Za-z0-9_+\\-]{20}"), CTX),
	RULE("opsgenie-api-key", "Opsgenie API key", "opsgenie|genieke",
	    KV("opsgenie|GenieKey", UUID), CTXU),
	RULE("splunk-hec-token", "Splunk HEC token", "splunk",
	    KV("splunk", UUID), CTXU),
	RULE("sumologic-access-key", "Sumo Logic access key", "sumo",
	    KV("sumo", "[A-Za-z0-9]{64}"), CTX),
	RULE("sumologic-access-id", "Sumo Logic access id", "sumo",
	    KV("sumo", "su[A-Za-z0-9]{12}"), CTX),
	RULE("logzio-token", "Logz.io token", "logz",
	    KV("logz", "[A-Za-z]{32}"), CTX),
	RULE("rollbar-token", "Rollbar access token", "rollbar",
	    KV("rollbar", HEX(32)), CTXH),
	RULE("bugsnag-api-key", "Bugsnag API key", "bugsnag",
	    KV("bugsnag", HEX(32)), CTXH),
	RULE("loggly-token", "Loggly customer token", "loggly",
	    KV("loggly", UUID), CTXU),
	RULE("flagsmith-key", "Flagsmith server-side environment key",
	    "flagsmith", KV("flagsmith", "ser\\.[A-Za-z0-9]{20,32}"),
	    .entropy = 3.0),
	RULE("loggly-input-url", "Loggly customer token in an input URL",
	    "loggly.com/inputs/|loggly.com/bulk/",
	    "loggly\\.com/(?:inputs|bulk)/(" UUID ")", CTXU),

	/* ---- package registries ---- */
	RULE("npm-access-token", "npm access token", "npm_",
	    B "(npm_[A-Za-z0-9]{36})" EA, .entropy = 3.5),
	RULE("npmrc-auth-token", "npm registry auth in .npmrc",
	    "_authtoken|_auth=|_password=",
	    "(?:_authToken|_auth|_password)(?:\\s*=\\s*|[ "
	    "\\t]+)[\"']?([A-Za-z0-9+/"
	    "=_.\\-]{16,200})",
	    .flags = LEAK_RF_VALUE | LEAK_RF_UUID_OK | LEAK_RF_HEX_OK),
	RULE("pypi-upload-token", "PyPI upload token",
	    "pypi-ageichlwas5vcmc|pypi-agendgvzdc5wexbplm9yzw",
	    B "(pypi-Ag(?:EIcHlwaS5vcmc|ENdGVzdC5weXBpLm9yZw)[A-Za-z0-9_\\-]{"
	      "50,300})" E,
	    .after = 320),
	RULE("rubygems-api-key", "RubyGems API key", "rubygems_",
	    B "(rubygems_" HEX(48) ")" EA),
	RULE("nuget-api-key", "NuGet API key", "\\boy2",
	    B "(oy2[a-z0-9]{43})" EA, .entropy = 3.5),
	RULE("dockerhub-pat", "Docker Hub access token", "dckr_pat_|dckr_oat_",
	    B "(dckr_(?:pat|oat)_[A-Za-z0-9_\\-]{27,32})" E),
	RULE("crates-io-token", "crates.io API token", "\\bcio",
	    B "(cio[A-Za-z0-9]{32})" EA, .entropy = 4.0),
	RULE("clojars-token", "Clojars deploy token", "clojars_",
	    B "(CLOJARS_[a-z0-9]{60})" EA),
	RULE("jfrog-api-key", "JFrog Artifactory API key", "akcp",
	    B "(AKCp[A-Za-z0-9]{69})" EA),
	RULE("jfrog-identity-token", "JFrog identity / reference token",
	    "cmvmdgtu", B "(cmVmdGtu[A-Za-z0-9]{56})" EA),
	RULE("hex-pm-key", "Hex.pm API key", "hex_api_key|hexpm",
	    KV("hex_?api_?key|hexpm", HEX(32)), CTXH),
	RULE("packagist-token", "Packagist API token", "packagist",
	    KV("packagist",
		"packagist_(?:uat|ort)_[A-Za-z0-9]{24,80}|[A-Za-z0-9]{20,64}"),
	    CTX),
	RULE("gradle-publish-key", "Gradle plugin portal secret",
	    "gradle.publish.secret|gradle_publish_secret",
	    KV("gradle[._]publish[._]secret", "[A-Za-z0-9]{32}"), CTX),
	RULE("sonatype-password", "Sonatype / Maven Central token password",
	    "sonatype|ossrh", KV("sonatype|ossrh", "[A-Za-z0-9+/=_\\-]{20,64}"),
	    .flags = LEAK_RF_VALUE | LEAK_RF_PASSWORD),
	RULE("anaconda-token", "Anaconda.org token", "anaconda",
	    KV("anaconda", "[A-Za-z0-9\\-]{30,40}"), CTX),

	/* ---- more providers with documented prefixes ---- */
	RULE("adafruit-io-key", "Adafruit IO key", "aio_",
	    B "(aio_[A-Za-z0-9]{28})" EA, .entropy = 3.5),
	RULE("adobe-client-secret", "Adobe client secret", "p8e-",
	    B "(p8e-[A-Za-z0-9_\\-]{32})" E, .entropy = 3.5),
	RULE("authress-key", "Authress service client key", ".acc_|.acc-",
	    B "((?:sc|ext|scauth|authress)_[a-z0-9]{5,30}\\.[a-z0-9]{4,6}\\."
	      "acc[_\\-][a-z0-9\\-]{10,32}\\.[A-Za-z0-9+/_=\\-]{30,120})",
	    .before = 60, .after = 200, .flags = LEAK_RF_WINDOW),
	RULE("defined-networking-key", "Defined Networking API key", "dnkey-",
	    B "(dnkey-[a-z0-9=_\\-]{26}-[a-z0-9=_\\-]{52})" E),
	RULE("harness-pat", "Harness personal / service account token",
	    "pat.|sat.",
	    B "((?:pat|sat)\\.[A-Za-z0-9_\\-]{22}\\.[0-9a-f]{24}\\.[A-Za-z0-9]{"
	      "20})" EA),
	RULE("infracost-api-key", "Infracost API key", "ico-",
	    B "(ico-[A-Za-z0-9]{32})" EA),
	RULE("intra42-client-secret", "42 intra client secret", "s-s4t2",
	    B "(s-s4t2(?:ud|af)-" HEX(64) ")" EA),
	RULE("octopus-deploy-api-key", "Octopus Deploy API key", "api-",
	    B "(API-[A-Z0-9]{26,32})" EA, .entropy = 3.0),
	RULE("prefect-api-key", "Prefect API key", "pnu_",
	    B "(pnu_[A-Za-z0-9]{36})" EA),
	RULE("scalingo-api-token", "Scalingo API token", "tk-us-",
	    B "(tk-us-[A-Za-z0-9_\\-]{48})" E),
	RULE("settlemint-token", "SettleMint access token",
	    "sm_pat_|sm_aat_|sm_sat_",
	    B "(sm_(?:pat|aat|sat)_[A-Za-z0-9]{16})" EA),
	RULE("sidekiq-credentials", "Sidekiq Enterprise credentials",
	    "contribsys|bundle_enterprise__contribsys__com|sidekiq",
	    "(?i:contribsys__com|sidekiq)[A-Za-z0-9_.\\-]{0,24}" Q "?\\s{0,4}"
	    "[=:]\\s{0,4}" Q "?(" HEX(8) ":" HEX(8) ")" EA "|https?://" HEX(
		8) ":(" HEX(8) ")@(?:gems|enterprise)\\.contribsys"
			       "\\.com",
	    .before = 40, .flags = LEAK_RF_WINDOW),
	RULE("1password-secret-key", "1Password account secret key", "a3-",
	    B "(A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-"
	      "[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5})" EA),
	RULE("1password-service-token", "1Password service account token",
	    "ops_eyj", B "(ops_eyJ[A-Za-z0-9+/]{250,}={0,3})", .after = 2000),
	RULE("maxmind-license-key", "MaxMind license key", "_mmk",
	    B "([A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk)" EA, .before = 40,
	    .flags = LEAK_RF_WINDOW),
	RULE("fastly-api-token", "Fastly API token", "fastly",
	    KV("fastly", "[A-Za-z0-9_\\-]{32}"), CTX),
	RULE("finnhub-api-key", "Finnhub API key", "finnhub",
	    KV("finnhub", "[a-z0-9]{20}"), CTX),
	RULE("flickr-api-key", "Flickr API key", "flickr",
	    KV("flickr", HEX(32)), CTXH),
	RULE("freshbooks-token", "FreshBooks access token", "freshbooks",
	    KV("freshbooks", "[a-z0-9]{64}"), CTX),
	RULE("gitter-token", "Gitter access token", "gitter",
	    KV("gitter", "[a-z0-9_\\-]{40}"), CTX),
	RULE("kraken-api-secret", "Kraken API private key", "kraken",
	    KV("kraken", "[A-Za-z0-9/=_+\\-]{80,90}"), CTX),
	RULE("kucoin-api-secret", "KuCoin API secret", "kucoin",
	    KV("kucoin", UUID "|" HEX(24)), CTXU),
	RULE("bittrex-api-secret", "Bittrex API secret", "bittrex",
	    KV("bittrex", "[a-z0-9]{32}"), CTX),
	RULE("binance-api-secret", "Binance API secret", "binance",
	    KV("binance", "[A-Za-z0-9]{64}"), CTX),
	RULE("finicity-client-secret", "Finicity client secret", "finicity",
	    KV("finicity", "[a-z0-9]{20}|" HEX(32)), CTXH),
	RULE("squarespace-token", "Squarespace API key", "squarespace",
	    KV("squarespace", UUID), CTXU),
	RULE("meraki-api-key", "Cisco Meraki API key", "meraki",
	    KV("meraki", HEX(40)), CTXH),
	RULE("looker-client-secret", "Looker API client secret", "looker",
	    KV("looker", "[A-Za-z0-9]{24}"), CTX),
	RULE("mapbox-token-context", "Mapbox secret token by name", "mapbox",
	    KV("mapbox[A-Za-z_]{0,12}secret", "sk\\.[A-Za-z0-9_.\\-]{60,200}"),
	    CTX),
	RULE("shopify-custom-token", "Shopify custom app token",
	    "shpat_|shpss_",
	    "(?i:shopify)[A-Za-z_]{0,20}[=:]\\s*" Q "?(" HEX(32) ")" EA,
	    .before = 40, .flags = LEAK_RF_HEX_OK),
	RULE("netrc-password", "Password in a .netrc entry",
	    "machine|default login",
	    "\\b(?:machine\\s+\\S+|default)\\s+(?:login\\s+\\S+\\s+)?"
	    "password\\s+(\\S{3,"
	    "128})",
	    .validator = LEAK_V_URL_PASSWORD, .before = 2, .after = 400),
	/* and HTTPie's -a / --auth */
	RULE("curl-user-password", "Password in curl -u / --user",
	    "curl|http -a|https -a|http --auth|https --auth",
	    "\\b(?:curl|https?)\\b[^\\n|;&]{0,300}?\\s(?:-u|--user|--proxy-"
	    "user|-U|"
	    "-a|--auth)\\s*"
	    "[\"']?[^:\"'\\s]{1,128}:([^\"'\\s]{3,128})",
	    .validator = LEAK_V_URL_PASSWORD, .before = 2, .after = 600),
	/* A key handed to an SDK's credential type: new
	 * ApiKeyCredential("..."), new AzureKeyCredential("..."). */
	RULE("stackhawk-api-key", "StackHawk API key", "hawk.",
	    B "(hawk\\.[A-Za-z0-9_\\-]{20}\\.[A-Za-z0-9_\\-]{20})" E,
	    .entropy = 3.5),
	RULE("sdk-key-credential", "Literal key in an SDK credential",
	    "keycredential(",
	    "(?i:keycredential)\\(\\s*(?:[^,()]{1,80},\\s*)?[\"']"
	    "([^\"'\\s\\\\]{12,256})\\\\?[\"']",
	    .entropy = 3.0, .after = 400,
	    .flags = LEAK_RF_VALUE | LEAK_RF_HEX_OK),
	/* SQL Server's command-line clients: -P password */
	RULE("sqlcmd-password",
	    "Password on sqlcmd's, osql's or bcp's "
	    "command line",
	    "sqlcmd|osql|bcp ",
	    "\\b(?:sqlcmd|osql|bcp)\\b[^\\n|;&]{0,300}?\\s-P\\s*"
	    "[\"']?([^\"'\\s\\-][^\"'\\s]{3,127})",
	    .validator = LEAK_V_URL_PASSWORD, .before = 2, .after = 500),
	/* Oracle's user/password@database: sqlplus and the other client
	 * tools' logins, and python-oracledb's and cx_Oracle's connect() */
	RULE("oracle-login-password",
	    "Password in an Oracle user/password@database login",
	    "sqlplus|sqlldr|expdp|impdp|rman target|rman catalog|"
	    "oracledb.connect|"
	    "cx_oracle.connect",
	    "(?i:\\b(?:sqlplus|sqlldr|expdp|impdp|rman\\s+(?:target|catalog)"
	    "\\s*=?|(?:oracledb|cx_oracle)\\.connect\\(\\s*(?:user\\s*=\\s*)?"
	    "[\"']))(?:\\s+-\\w+)*\\s*[A-Za-z][\\w$#]{0,29}/"
	    "([^@\\s\"'/]{3,128})@[A-Za-z0-9_.\\-:/]+",
	    .validator = LEAK_V_URL_PASSWORD, .before = 2, .after = 400),
	/* requests' auth=(user, password), Go's req.SetBasicAuth(user,
	 * password), Python's HTTPBasicAuth(user, password) */
	RULE("code-basic-auth", "Password passed to a Basic auth call",
	    "auth=(|auth = (|basicauth(",
	    "(?i:auth\\s?=\\s?\\(|basicauth\\()\\s*[\"'][^\"'\\s]{1,128}[\"']"
	    "\\s*,"
	    "\\s*[\"']([^\"'\\s]{4,128})[\"']",
	    .validator = LEAK_V_URL_PASSWORD, .after = 300),
	RULE("pgpass-entry", "Password in a .pgpass line", "pgpass",
	    "(?m)^[A-Za-z0-9.\\-*]+:(?:\\d+|\\*):[^:\\n]+:[^:\\n]+:([^\\n]{4,"
	    "128})$",
	    .validator = LEAK_V_URL_PASSWORD, .before = 2, .after = 2000,
	    .flags = LEAK_RF_WINDOW),
	/* A .pgpass line anywhere: host:port:database:user:password, the
	 * port PostgreSQL's or a wildcard. */
	RULE("pgpass-line", "Password in a .pgpass line", ":5432:|:*:",
	    "(?m)(?:^|(?<=[\\s'\"]))[A-Za-z0-9.\\-_*]{1,253}:(?:5432|\\*):"
	    "[^:\\s'\"]{1,63}:[^:\\s'\"]{1,63}:"
	    "((?:[^\\s'\"\\\\:]|\\\\.){6,128})(?=$|[\\s'\"])",
	    .validator = LEAK_V_URL_PASSWORD, .before = 260, .after = 260,
	    .flags = LEAK_RF_WINDOW),
	/* A literal secret handed to a JWT library or an HMAC:
	 * jwt.sign(payload, 'secret'), jwt.encode(claims, "secret", ...),
	 * hmac.new(b'secret', msg, sha256), hmac.New(sha256.New,
	 * []byte("secret")), crypto.createHmac('sha256', 'secret'). */
	RULE("jwt-signing-secret", "Literal secret passed to a JWT library",
	    "jwt.sign(|jwt.encode(|jwt.verify(|jwt.decode(",
	    "(?i:jwt\\.(?:sign|encode|verify|decode))\\([^()]{1,200}?,\\s*"
	    "b?[\"'`]([^\"'`\\s\\\\]{8,256})\\\\?[\"'`]",
	    .entropy = 3.0, .after = 500, .flags = LEAK_RF_VALUE),
	RULE("hmac-key-literal", "Literal HMAC key", "hmac.new(|createhmac(",
	    "(?i:hmac\\.new\\(\\s*(?:sha\\d+\\.New\\s*,\\s*)?(?:\\[\\]byte\\()?"
	    "b?|"
	    "createHmac\\(\\s*[\"'`][A-Za-z0-9\\-]{2,12}[\"'`]\\s*,\\s*)"
	    "[\"'`]([^\"'`\\s\\\\]{12,256})\\\\?[\"'`]",
	    .entropy = 3.0, .after = 400,
	    .flags = LEAK_RF_VALUE | LEAK_RF_HEX_OK),
	RULE("docker-config-auth", "Registry credentials in docker config.json",
	    "\"auth\"", "\"auth\"\\s*:\\s*\"([A-Za-z0-9+/]{8,400}={0,2})\"",
	    .validator = LEAK_V_BASIC_AUTH, .before = 2),
	RULE("kubernetes-secret-data", "Password in a Kubernetes Secret",
	    "kind: secret",
	    "(?s)kind:\\s*Secret.{0,600}?\\n\\s+(?:password|token|api[_-]?key|"
	    "secret)[A-Za-z0-9_.\\-]*:\\s*([A-Za-z0-9+/]{12,}={0,2})",
	    .entropy = 3.0, .before = 4, .after = 1200,
	    .flags = LEAK_RF_VALUE | LEAK_RF_UUID_OK | LEAK_RF_HEX_OK),
	RULE("mailgun-webhook-key", "Mailgun HTTP webhook signing key",
	    "mailgun",
	    KV("mailgun[A-Za-z_]{0,12}webhook", "[a-z0-9\\-]{32,40}"), CTX),
	RULE("dropbox-short-lived", "Dropbox app secret", "dropbox",
	    KV("dropbox[A-Za-z_]{0,12}secret", "[a-z0-9]{15}"), CTX),
	RULE("nvidia-api-key", "NVIDIA NGC / API key", "nvapi-",
	    B "(nvapi-[A-Za-z0-9_\\-]{64})" E),
	RULE("google-ai-studio-key", "Gemini API key by name", "gemini",
	    KV("gemini", "AIza[0-9A-Za-z_\\-]{35}"), CTX),
	RULE("runpod-api-key", "RunPod API key", "rpa_",
	    B "(rpa_[A-Z0-9]{40,50})" EA),
	RULE("modal-token", "Modal token secret", "as-|modal",
	    KV("modal[A-Za-z_]{0,12}secret", "as-[A-Za-z0-9]{20,30}"), CTX),
	RULE("cerebras-api-key", "Cerebras API key", "csk-",
	    B "(csk-[a-z0-9]{40,56})" EA),
	RULE("anyscale-api-key", "Anyscale API key", "esecret_",
	    B "(esecret_[A-Za-z0-9]{20,40})" EA),
	RULE("sambanova-api-key", "SambaNova / misc AI keys by name",
	    "sambanova|novita|hyperbolic|lepton|baseten|octoai|nscale",
	    KV("sambanova|novita|hyperbolic|lepton|baseten|octoai|nscale",
		"[A-Za-z0-9_\\-.]{24,120}"),
	    CTXU),
	RULE("azure-search-admin-key", "Azure AI Search admin key",
	    "search_admin_key|search_api_key|azure_search",
	    KV("azure_search|search_admin_key|search_api_key",
		"[A-Za-z0-9]{52}|" UHEX(32)),
	    CTXH),
	RULE("aws-bedrock-api-key", "Amazon Bedrock API key", "absk",
	    B "(ABSK[A-Za-z0-9+/]{100,200}={0,2})", .after = 260),

	/* ---- more providers: networking, hosting, regional clouds ---- */
	RULE("tailscale-key", "Tailscale auth, API or OAuth client key",
	    "tskey-",
	    B "(tskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]{6,"
	      "24}-[A-Za-z0-9]{20,64})" EA),
	RULE("ngrok-authtoken", "ngrok authtoken or API key", "ngrok",
	    KV("ngrok", "[0-9][A-Za-z0-9]{25,27}_[A-Za-z0-9]{17,23}"), CTX),
	RULE("vultr-api-key", "Vultr API key", "vultr",
	    KV("vultr", "[A-Z0-9]{36}"), CTX),
	RULE("hetzner-cloud-token", "Hetzner Cloud API token", "hcloud|hetzner",
	    KV("hcloud|hetzner", ALNUM(64)), CTX),
	RULE("ovh-application-secret",
	    "OVHcloud application secret or "
	    "consumer key",
	    "ovh", KV("ovh", ALNUM(32)), CTX),
	RULE("exoscale-api-key", "Exoscale API key", "exo",
	    B "(EXO[a-f0-9]{24})" EA, .entropy = 3.0),
	RULE("exoscale-api-secret", "Exoscale API secret", "exoscale",
	    KV("exoscale", "[A-Za-z0-9_\\-]{43}"), CTX),
	RULE("backblaze-application-key", "Backblaze B2 application key",
	    "b2_|backblaze", KV("b2_|backblaze", "K00[0-9A-Za-z+/]{28}"), CTX),
	RULE("akamai-edgegrid-token", "Akamai EdgeGrid client or access token",
	    "akab-", B "(akab-[a-z0-9]{16}-[a-z0-9]{16})" EA),
	RULE("akamai-client-secret", "Akamai EdgeGrid client secret",
	    "client_secret|client-secret",
	    "(?i:client[_\\-]secret)" Q "?\\s{0,4}[=:]\\s{0,4}" Q "?"
	    "([A-Za-z0-9+/]{43}=)",
	    .entropy = 4.0),
	RULE("consul-token", "HashiCorp Consul ACL token", "consul",
	    KV("consul", UUID), CTXU),
	RULE("nomad-token", "HashiCorp Nomad ACL token", "nomad",
	    KV("nomad", UUID), CTXU),
	RULE("upstash-token", "Upstash REST token", "upstash",
	    KV("upstash", "A[A-Za-z0-9_\\-]{30,200}={0,2}"), CTX),
	RULE("elastic-api-key", "Elastic Cloud / Elasticsearch API key",
	    "elastic", KV("elastic", "[A-Za-z0-9+/_\\-]{40,120}={0,2}"), CTX),

	/* ---- more AI and data providers ---- */
	RULE("tavily-api-key", "Tavily API key", "tvly-",
	    B "(tvly-(?:dev-|prod-)?[A-Za-z0-9]{24,40})" EA),
	RULE("firecrawl-api-key", "Firecrawl API key", "\\bfc-",
	    B "(fc-" HEX(32) ")" EA),
	RULE("e2b-api-key", "E2B API key", "e2b_", B "(e2b_" HEX(40) ")" EA),
	RULE("browserbase-api-key", "Browserbase API key", "bb_live_|bb_test_",
	    B "(bb_(?:live|test)_[A-Za-z0-9_\\-]{20,60})" EA),
	RULE("jina-api-key", "Jina AI API key", "jina_",
	    B "(jina_[A-Za-z0-9_\\-]{50,80})" EA),
	RULE("langfuse-secret-key", "Langfuse secret key", "sk-lf-",
	    B "(sk-lf-" UUID ")" EA),
	RULE("cartesia-api-key", "Cartesia API key", "sk_car_",
	    B "(sk_car_[A-Za-z0-9]{20,60})" EA),
	RULE("serpapi-key", "SerpApi / Serper API key", "serpapi|serper",
	    KV("serpapi|serper", HEX(40) "|" HEX(64)), CTXH),
	RULE("qdrant-api-key", "Qdrant / Weaviate API key", "qdrant|weaviate",
	    KV("qdrant|weaviate", "[A-Za-z0-9_\\-|]{32,120}"), CTX),
	RULE("zhipu-api-key", "Zhipu AI (GLM) API key", "zhipu|bigmodel",
	    KV("zhipu|bigmodel", HEX(32) "\\." ALNUM(16)), CTXH),
	RULE("moonshot-api-key", "Moonshot / DashScope / Qwen API key",
	    "moonshot|dashscope|qwen|kimi",
	    KV("moonshot|dashscope|qwen|kimi", "sk-[A-Za-z0-9]{32,64}"), CTX),

	/* ---- more SaaS: auth, commerce, messaging, analytics ---- */
	RULE("stytch-secret", "Stytch project secret",
	    "secret-live-|secret-test-",
	    B "(secret-(?:live|test)-[A-Za-z0-9_=\\-]{32,48})" EA),
	RULE("resend-api-key", "Resend API key", "\\bre_",
	    B "(re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24})" EA, .entropy = 3.5),
	RULE("mailersend-api-token", "MailerSend API token", "mlsn.",
	    B "(mlsn\\.[a-f0-9]{64})" EA),
	RULE("klaviyo-private-key", "Klaviyo private API key", "\\bpk_",
	    B "(pk_[a-f0-9]{34})" EA, .entropy = 3.0),
	RULE("salesforce-access-token", "Salesforce access token", "00d",
	    B "(00D[A-Za-z0-9]{12,15}![A-Za-z0-9._]{80,200})" EA, .after = 260),
	RULE("woocommerce-key", "WooCommerce REST API consumer key or secret",
	    "\\bck_|\\bcs_", B "((?:ck|cs)_" HEX(40) ")" EA),
	RULE("telnyx-api-key", "Telnyx API key",
	    "\\bkey0|\\bkey1|\\bkey2|"
	    "\\bkey3|\\bkey4|\\bkey5|\\bkey6|\\bkey7|\\bkey8|\\bkey9|\\bkeya|"
	    "\\bkeyb|\\bkeyc|\\bkeyd|\\bkeye|\\bkeyf",
	    B "(KEY[0-9A-F]{32}_[A-Za-z0-9]{22})" EA),
	RULE("mollie-api-key", "Mollie API key", "mollie|live_|test_",
	    KV("mollie",
		"(?:live|test)_[A-Za-z0-9]{30}") "|" B
						 "((?:live|test)_[A-Za-z0-9]{"
						 "30})(?=[\"'\\s]|$)",
	    .entropy = 3.5, CTX),
	RULE("paystack-secret-key", "Paystack secret key",
	    "paystack|sk_live_|sk_test_",
	    KV("paystack",
		"sk_(?:live|test)_" HEX(
		    40)) "|" B "(sk_(?:live|test)_" HEX(40) ")" EA,
	    .entropy = 3.0, CTXH),
	RULE("segment-write-key", "Segment / Mixpanel / Amplitude secret",
	    "segment|mixpanel|amplitude",
	    KV("segment[A-Za-z_]{0,8}(?:write|secret|key)|mixpanel[A-Za-z_]{0,"
	       "8}(?:secret|token)|amplitude[A-Za-z_]{0,8}(?:secret|key)",
		"[A-Za-z0-9]{32}"),
	    CTXH),
	RULE("sanity-token", "Sanity API token", "sanity",
	    KV("sanity", "sk[A-Za-z0-9]{80,200}"), CTX, .after = 300),
	RULE("youtrack-token", "YouTrack permanent token", "perm:|perm-",
	    B "(perm[:\\-][A-Za-z0-9+/=]{4,60}\\.[A-Za-z0-9+/=]{2,40}\\."
	      "[A-Za-z0-9]{20,40})" EA),
	RULE("rails-master-key", "Rails master key or secret_key_base",
	    "rails_master_key|secret_key_base",
	    KV("rails_master_key|secret_key_base", HEX(128) "|" HEX(32)), CTXH),
	RULE("laravel-app-key", "Laravel APP_KEY", "app_key",
	    "(?i:app_key)" Q "?\\s{0,4}[=:]\\s{0,4}" Q "?(base64:[A-Za-z0-9+/"
	    "]{43}=)"),
	/* Django draws its keys from a-z, 0-9 and !@#$%^&*(-_=+), so "%(",
	 * "%d" or "%s" are common in them: the generic placeholder check
	 * would drop a quarter of real keys, and only named placeholders
	 * are allowed. */
	RULE("django-secret-key", "Django SECRET_KEY", "django-insecure-",
	    "(django-insecure-[^\\s\"'`]{40,60})", .flags = LEAK_RF_NOALLOW,
	    .allow = "(?i)example|your|change|placeholder|here|x{5,}"),
	/* A SECRET_KEY setting of Django's own alphabet and length (50),
	 * however it is quoted. */
	RULE("django-secret-key-setting", "Django SECRET_KEY setting",
	    "secret_key|secretkey|secret-key",
	    "(?i:(?:django[_\\-]?)?secret[_\\-]?key)" Q
	    "?\\s{0,4}[=:]\\s{0,4}" QB "?"
	    "([a-z0-9!@#$%^&*(\\-_=+)]{50})"
	    /* then its end, or the next parameter of a query string */
	    "(?![a-z0-9!@#$%^*(\\-_=+)])(?!&(?![A-Za-z0-9_]{1,32}=))",
	    .entropy = 4.2, .flags = LEAK_RF_NOALLOW,
	    .allow = "(?i)example|your|change|placeholder|here|x{5,}"),
	RULE("zapier-webhook-url", "Zapier webhook URL", "hooks.zapier.com",
	    "(hooks\\.zapier\\.com/hooks/catch/[0-9]{5,10}/[a-z0-9]{5,10})"),
	RULE("google-chat-webhook-url", "Google Chat webhook URL",
	    "chat.googleapis.com",
	    "(chat\\.googleapis\\.com/v1/spaces/[A-Za-z0-9_\\-]{8,20}/"
	    "messages\\?"
	    "key=[A-Za-z0-9_\\-]{30,50}&token=[A-Za-z0-9_\\-%=]{30,80})"),
	RULE("kubernetes-bootstrap-token", "Kubernetes bootstrap token",
	    "--token|bootstrap",
	    "(?i:--token|bootstrap[A-Za-z_\\-]{0,12}token)" Q "?\\s{0,4}[=: ]"
	    "\\s{0,4}" Q "?([a-z0-9]{6}\\.[a-z0-9]{16})(?![A-Za-z0-9])"),

	/* ---- more providers: data, infra, dev tools, AI ---- */
	RULE("pinecone-api-key-legacy", "Pinecone legacy API key", "pinecone",
	    KV("pinecone", UUID), CTXU),
	RULE("razorpay-key-id", "Razorpay API key id", "rzp_",
	    B "(rzp_(?:live|test)_[A-Za-z0-9]{14})" EA, .entropy = 3.0),
	RULE("intercom-access-token", "Intercom access token (base64 tok:)",
	    "dg9roj", B "(dG9rOj[A-Za-z0-9+/]{40,80}={0,2})", .entropy = 4.0),
	RULE("ably-api-key", "Ably API key (app.key:secret)", "ably_|\\bably.",
	    "(?i:ably)[^\\n]{0,60}?(?<![A-Za-z0-9_\\-])([A-Za-z0-9_\\-]{6}\\."
	    "[A-Za-z0-9_\\-]{6}:[A-Za-z0-9_+/=\\-]{40,50})(?![A-Za-z0-9_+/"
	    "=\\-])",
	    .entropy = 4.0, .after = 160),
	RULE("pubnub-secret-key", "PubNub secret key", "sec-c-",
	    B "(sec-c-[A-Za-z0-9+/=]{40,60})" E, .entropy = 3.5),
	RULE("docker-swarm-join-token", "Docker Swarm join token", "swmtkn-1-",
	    B "(SWMTKN-1-[a-z0-9]{50}-[a-z0-9]{25})" EA),
	RULE("rancher-api-token", "Rancher API token", "token-",
	    B "(token-[a-z0-9]{5}:[a-z0-9]{54})" EA, .entropy = 3.5),
	RULE("teamcity-token", "TeamCity access token", "eyj0exaioiaivenwmij9",
	    B "(eyJ0eXAiOiAiVENWMiJ9\\.[A-Za-z0-9_\\-]{20,80}\\.[A-Za-z0-9_\\-]"
	      "{20,120})" E),
	RULE("deno-deploy-token", "Deno Deploy access token", "ddp_",
	    B "(ddp_[A-Za-z0-9]{36})" EA, .entropy = 3.5),
	RULE("apify-api-token", "Apify API token", "apify_api_",
	    B "(apify_api_[A-Za-z0-9]{36})" EA),
	RULE("llamacloud-api-key", "LlamaCloud (LlamaIndex) API key", "llx-",
	    B "(llx-[A-Za-z0-9]{40,60})" EA, .entropy = 3.5),
	RULE("posthog-personal-api-key", "PostHog personal API key", "phx_",
	    B "(phx_[A-Za-z0-9]{40,50})" EA, .entropy = 3.5),
	RULE("riot-games-api-key", "Riot Games API key", "rgapi-",
	    B "(RGAPI-" UUID ")" EA),
	RULE("paddle-api-key", "Paddle Billing API key", "pdl_",
	    B "(pdl_(?:live|sdbx)_apikey_[a-z0-9]{26}_[A-Za-z0-9_]{20,40})" EA),
	RULE("checkout-secret-key", "Checkout.com secret key",
	    "sk_sbox_|checkout_com|cko_",
	    B "(sk_sbox_[a-z0-9]{26})" EA
	      "|" KV("checkout[_\\-]?com|cko_", "sk_[a-z0-9]{26}"),
	    CTX),
	RULE("dbt-cloud-token", "dbt Cloud service or personal token",
	    "dbtc_|dbtu_", B "(dbt[cu]_[A-Za-z0-9_\\-]{40,80})" E,
	    .entropy = 3.5),
	RULE("axiom-token", "Axiom API or personal token", "xaat-|xapt-",
	    B "(xa[ap]t-" UUID ")" EA),
	RULE("tinybird-token", "Tinybird token", "p.eyj",
	    B "(p\\.eyJ[A-Za-z0-9_\\-]{20,400}\\.[A-Za-z0-9_\\-]{20,80})" E,
	    .after = 500),
	RULE("helicone-api-key", "Helicone API key", "sk-helicone-",
	    B "(sk-helicone-[a-z0-9\\-]{20,80})" E),
	RULE("openweather-api-key", "OpenWeather API key", "appid=|openweather",
	    "(?:[?&](?i:appid)=|(?i:openweather)[A-Za-z0-9_.\\-]{0,24}" Q "?"
	    "\\s{0,4}[=:]\\s{0,4}" Q "?)(" HEX(32) ")" EA,
	    .before = 2, .flags = LEAK_RF_WINDOW | LEAK_RF_HEX_OK),
	RULE("jdbc-password", "Password in a JDBC URL", "jdbc:",
	    "(?i:jdbc:[a-z0-9]+:)(?:(?i:thin|oci8?):)?(?:[A-Za-z0-9_.$#\\-]"
	    "{1,64}/([^@\\s\"'<>/]{1,128})@|[^\\s\"'<>]{0,300}?[;?&](?i:"
	    "password|pwd)=([^;&\\s\"'<>]{1,128}))",
	    .validator = LEAK_V_URL_PASSWORD, .after = 500),
	RULE("shodan-api-key", "Shodan API key", "shodan",
	    KV("shodan", ALNUM(32)), CTX),
	RULE("virustotal-api-key", "VirusTotal API key", "virustotal|vt_api",
	    KV("virustotal|vt_api", HEX(64)), CTXH),
	RULE("steam-web-api-key", "Steam Web API key", "steam_|steamapi",
	    KV("steam[_\\-]?(?:web)?[_\\-]?api", UHEX(32)), CTXH),
	RULE("ghost-admin-api-key", "Ghost Admin API key", "ghost_",
	    KV("ghost", HEX(24) ":" HEX(64)), CTXH),
	RULE("box-api-token", "Box developer token or client secret", "box_",
	    KV("box_(?:developer|client|access)", ALNUM(32)), CTX),
	RULE("expo-access-token", "Expo access token", "expo_",
	    KV("expo_(?:token|access)", "[A-Za-z0-9_\\-]{40}"), CTX),
	RULE("infura-secret", "Infura project secret", "infura",
	    KV("infura", HEX(32)), CTXH),
	RULE("alchemy-api-key", "Alchemy API key", "alchemy",
	    KV("alchemy", "[A-Za-z0-9_\\-]{32}"), CTX),
	RULE("etherscan-api-key", "Etherscan API key", "etherscan",
	    KV("etherscan", "[A-Z0-9]{34}"), CTX),
	RULE("duo-secret-key", "Duo Security secret key", "duo_",
	    KV("duo_(?:secret|skey|client_secret)", ALNUM(40)), CTX),
	RULE("portainer-api-key", "Portainer API key", "portainer",
	    KV("portainer", "ptr_[A-Za-z0-9+/=]{40,50}|[A-Za-z0-9+/=]{40,50}"),
	    CTX),

	RULE("amazon-lwa-client-secret",
	    "Login with Amazon (LWA) client secret", "amzn1.oa2-cs.v1.",
	    B "(amzn1\\.oa2-cs\\.v1\\." HEX(64) ")" EA),
	RULE("cli-short-flag-password",
	    "Password after mysql -p, sshpass -p, redis-cli -a or docker "
	    "login -p",
	    "mysql|sshpass|redis-cli|docker login",
	    "(?:\\bmysql(?:dump|admin|import|sh)?\\b[^\\n|;&]{0,200}?\\s-p"
	    "(?!\\s)[\"']?([^\\s\"'`;&|]{3,128})"
	    "|\\bsshpass\\s+-p\\s*[\"']?([^\\s\"'`;&|]{3,128})"
	    "|\\bredis-cli\\b[^\\n|;&]{0,200}?\\s-a\\s+[\"']?([^\\s\"'`;&|]"
	    "{3,128})"
	    "|\\bdocker\\s+login\\b[^\\n|;&]{0,200}?\\s(?:-p|--password)"
	    "(?:\\s+|=)[\"']?([^\\s\"'`;&|]{3,128}))",
	    .validator = LEAK_V_URL_PASSWORD, .before = 2, .after = 400),

	/* ---- more providers whose keys are UUIDs (the generic rules take
	 * a bare UUID for an identifier, so only the name tells) ---- */
	RULE("cypress-record-key", "Cypress Cloud record key", "cypress",
	    KV("cypress",
		UUID) "|(?i:cypress)\\b[^\\n|;&]{0,200}?--key(?:=|\\s+)"
		      "[\"']?(" UUID ")",
	    CTXU, .after = 300),
	RULE("saucelabs-access-key", "Sauce Labs access key", "sauce_",
	    KV("sauce", UUID), CTXU),
	RULE("exa-api-key", "Exa search API key", "exa_",
	    KV("exa[_\\-](?:api|key)", UUID), CTXU),
	RULE("leonardo-api-key", "Leonardo.Ai API key", "leonardo",
	    KV("leonardo", UUID), CTXU),
	RULE("wise-api-token", "Wise (TransferWise) API token",
	    "transferwise|wise_", KV("transferwise|wise_(?:api|token)", UUID),
	    CTXU),
	RULE("bitwarden-access-token", "Bitwarden Secrets Manager access token",
	    "bws_access_token|bitwarden",
	    KV("bws_access_token|bitwarden",
		"0\\." UUID "\\.[A-Za-z0-9]{20,40}:[A-Za-z0-9+/]{20,30}={0,2}"),
	    CTXU),

	/* ---- more documented prefixes ---- */
	RULE("matrix-access-token", "Matrix (Synapse) access or refresh token",
	    "syt_|syr_",
	    B "(sy[tr]_[A-Za-z0-9]{2,120}_[A-Za-z0-9]{20}_[A-Za-z0-9]{6})" EA),
	RULE("twitch-oauth-token", "Twitch chat OAuth token",
	    "oauth:", B "(oauth:[a-z0-9]{30})" EA, .entropy = 3.5),
	RULE("gcp-hmac-access-id", "Google Cloud Storage HMAC access id",
	    "goog1", B "(GOOG1[A-Z0-9]{50,60})" EA, .entropy = 3.5),
	RULE("volcengine-access-key", "Volcengine (ByteDance) access key id",
	    "aklt", B "(AKLT[A-Za-z0-9_\\-]{32,60})" EA, .entropy = 3.5),
	RULE("azure-sas-signature", "Azure Service Bus / Event Hubs SAS token",
	    "sharedaccesssignature",
	    "SharedAccessSignature\\s+[^\\s\"']{0,300}?\\bsig=([A-Za-z0-9%+/"
	    "]{40,"
	    "120}(?:%3D|=){0,2})",
	    .after = 500),
	RULE("infisical-token", "Infisical service token", "infisical",
	    KV("infisical", "st\\.[a-f0-9]{24}\\.[a-f0-9]{32}\\.[a-f0-9]{32}"),
	    CTX),
	RULE("huawei-cloud-secret-key", "Huawei Cloud secret access key",
	    "huawei|hwcloud", KV("huawei|hwcloud", ALNUM(40)), CTX),
	RULE("mailtrap-api-token", "Mailtrap API token", "mailtrap",
	    KV("mailtrap", HEX(32)), CTXH),
	RULE("pipedrive-api-token", "Pipedrive API token", "pipedrive",
	    KV("pipedrive", HEX(40)), CTXH),
	RULE("bitly-access-token", "Bitly access token", "bitly",
	    KV("bitly", HEX(40)), CTXH),
	RULE("browserstack-access-key", "BrowserStack access key",
	    "browserstack", KV("browserstack", ALNUM(20)), CTX),
	RULE("cloudinary-api-secret", "Cloudinary API secret", "cloudinary",
	    KV("cloudinary[A-Za-z_]{0,12}secret", "[A-Za-z0-9_\\-]{27}"), CTX),
	RULE("apollo-graphos-key", "Apollo GraphOS API key", "apollo_",
	    KV("apollo",
		"(?:service|user):[A-Za-z0-9_.\\-]{3,64}:[A-Za-z0-9_\\-]{22}"),
	    CTX),

	/* ---- secrets in config formats the assignment rules do not read ----
	 */
	RULE("xml-attribute-secret",
	    "Secret in an XML key/value pair (NuGet.config, app.config)",
	    "\" value=",
	    "(?i:password|passwd|secret|token|apikey|api_key|accesskey)\"\\s+"
	    "(?i:value)\\s*=\\s*\"([^\"\\s]{6,256})\"",
	    .entropy = 2.4, .before = 24,
	    .flags = LEAK_RF_WINDOW | LEAK_RF_VALUE | LEAK_RF_PASSWORD |
		LEAK_RF_HEX_OK | LEAK_RF_UUID_OK),
	RULE("php-define-secret", "Secret in a PHP define() (wp-config.php)",
	    "define(",
	    "define\\(\\s*['\"][A-Za-z0-9_]*(?:PASSWORD|PASS|SECRET|KEY|TOKEN|"
	    "SALT)[A-Za-z0-9_]*['\"]\\s*,\\s*['\"]([^'\"\\s]{6,256})['\"]",
	    .entropy = 2.4, .after = 400,
	    .flags = LEAK_RF_VALUE | LEAK_RF_PASSWORD | LEAK_RF_HEX_OK),
	RULE("sql-identified-by", "Password in SQL IDENTIFIED BY", "identified",
	    "(?i:identified\\s+by)\\s+(?:password\\s+)?['\"]([^'\"]{4,128})"
	    "['\"]",
	    .validator = LEAK_V_URL_PASSWORD,
	    .flags = LEAK_RF_VALUE | LEAK_RF_PASSWORD),

	/* ---- private keys ---- */
	RULE("private-key", "PEM private key", "private key-----",
	    "(-----BEGIN ((?:RSA |EC |DSA |ENCRYPTED |OPENSSH |SSH2 ENCRYPTED "
	    ")?"
	    "PRIVATE KEY)-----[\\s\\S]{40,12000}?-----END \\2-----"
	    "|-----BEGIN (?:RSA |EC |DSA |ENCRYPTED )?PRIVATE KEY-----"
	    "(?:\\s|\\\\n|\\\\r)*(?:[A-Za-z0-9+/"
	    "=:,\\-]{16,}(?:\\s|\\\\n|\\\\r)+)?"
	    "[A-Za-z0-9+/=]{40,})",
	    .flags = LEAK_RF_WINDOW | LEAK_RF_NOALLOW, .before = 32,
	    .after = 12100),
	RULE("openssh-private-key", "OpenSSH private key (bare base64)",
	    "b3blbnnzac1rzxktdjeaaaaa",
	    "(b3BlbnNzaC1rZXktdjEAAAAA[A-Za-z0-9+/=\\s]{60,})",
	    .flags = LEAK_RF_NOALLOW, .after = 600),
	RULE("pgp-private-key", "PGP private key block",
	    "pgp private key block-----",
	    "(-----BEGIN PGP PRIVATE KEY BLOCK-----[\\s\\S]{40,12000}?"
	    "(?:-----END PGP PRIVATE KEY BLOCK-----|$))",
	    .flags = LEAK_RF_WINDOW | LEAK_RF_NOALLOW, .before = 12,
	    .after = 12100),
	RULE("putty-private-key", "PuTTY private key file",
	    "putty-user-key-file-",
	    "(PuTTY-User-Key-File-\\d: [a-z0-9\\-]+[\\s\\S]{20,8000}?"
	    "Private-Lines: \\d+(?:\\s|\\\\r|\\\\n)+[A-Za-z0-9+/=]{40,})",
	    .flags = LEAK_RF_NOALLOW, .after = 8200),
	RULE("age-secret-key", "age encryption secret key", "age-secret-key-1",
	    "(AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})"),
	RULE("ssh-private-key-pkcs8-b64", "Base64 PKCS#8 private key body",
	    "miievgibadanbgkqhkig9w0baqefaascb|"
	    "miievaibadanbgkqhkig9w0baqefaascb|"
	    "migtageaebmbmgbyqgsm49agegcccqgsm49",
	    B "((?:MIIEvgIBADANBgkqhkiG9w0BAQEFAASCB|"
	      "MIIEvAIBADANBgkqhkiG9w0BAQEFAASCB|"
	      "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49)[A-Za-z0-9+/=]{60,2400})",
	    .after = 2500),

	/* ---- tokens with structure ---- */
	RULE("jwt", "JSON Web Token", "eyj",
	    B "(eyJ[A-Za-z0-9_\\-]{8,}\\.eyJ[A-Za-z0-9_\\-]{8,}\\."
	      "[A-Za-z0-9_\\-]{0,1400})" E,
	    .validator = LEAK_V_JWT, .before = 4, .after = 4000,
	    .flags = LEAK_RF_NOALLOW, .allow = JWT_IO_EXAMPLE),

	/* ---- credentials in URLs and connection strings ---- */
	RULE("database-url-password", "Password in a database URL", "://",
	    "(?i:(?:postgres(?:ql)?|pgsql|mysql(?:x)?|mariadb|mongodb(?:\\+srv)"
	    "?|"
	    "redis|rediss|valkey|amqps?|mssql|sqlserver|oracle|cockroachdb|"
	    "clickhouse|neo4j(?:\\+s)?|bolt|couchdb|cassandra|memcached|"
	    "elasticsearch|opensearch|influxdb|db2|snowflake|jdbc:[a-z0-9]+|"
	    "mongo|nats|kafka|"
	    "rabbitmq|sqlalchemy|postgresql\\+[a-z0-9]+|mysql\\+[a-z0-9]"
	    "+)"
	    ")://[^:/\\s@\"'<>]{0,128}:([^@/"
	    "\\s\"'<>]{1,256})@[A-Za-z0-9.\\-_\\[]",
	    .validator = LEAK_V_URL_PASSWORD, .before = 40,
	    .flags = LEAK_RF_WINDOW),
	RULE("url-userinfo-password", "Password in URL userinfo", "://",
	    "(?i:[a-z][a-z0-9+.\\-]{1,20})://(?:[^:/\\s@\"'<>]{1,128}:"
	    "([^@/\\s\"'<>]{1,256})|:([^:@/"
	    "\\s\"'<>]{1,256}))@[A-Za-z0-9.\\-_\\[]",
	    .validator = LEAK_V_URL_PASSWORD, .before = 24,
	    .flags = LEAK_RF_WINDOW),
	RULE("connection-string-password", "Password in a connection string",
	    "password=|pwd=",
	    "(?i:(?:Server|Data Source|Host|Address|Addr|Network Address|"
	    "AccountName|User ID|UID|Username|Database|Initial Catalog)\\s*=)"
	    "[^\\n\"']{0,200}?(?i:\\b(?:Password|Pwd)\\s*=\\s*)"
	    "('[^']{1,128}'|\\{[^}]{1,128}\\}|[^;\\s\"']{1,128})",
	    .validator = LEAK_V_URL_PASSWORD, .before = 240, .after = 140,
	    .flags = LEAK_RF_WINDOW),
	RULE("http-basic-auth", "HTTP Basic credentials", "basic",
	    "(?i:\\bbasic)\\s+([A-Za-z0-9+/]{6,400}={0,2})(?![A-Za-z0-9+/=])",
	    .validator = LEAK_V_BASIC_AUTH, .before = 2, .after = 420,
	    .allow = DOC_EXAMPLES),
	RULE("http-bearer-token", "HTTP Bearer token", "bearer",
	    "(?i:\\bbearer)\\s+([A-Za-z0-9_\\-.~+/:!]{16,2048}=*)"
	    "(?![A-Za-z0-9_\\-.~+/=:!])",
	    .entropy = 3.0,
	    .flags = LEAK_RF_VALUE | LEAK_RF_GENERIC | LEAK_RF_HEX_OK |
		LEAK_RF_UUID_OK,
	    .before = 2, .after = 2100, .allow = DOC_EXAMPLES "|" PUBLIC_KEYS),
	RULE("http-token-auth", "HTTP Authorization token header",
	    "authorization",
	    "(?i:\\b(?:proxy-)?authorization" Q "?\\s*[:=]\\s*" Q "?"
	    "(?:token|bot|apikey|api-key|key|sso-key|ssws|digest|dsn|otoken|"
	    "accesskey|apitoken|api-token|geniekey|klaviyo-api-key|"
	    "deepl-auth-key|splunk|zoho-oauthtoken)"
	    "\\s+)"
	    "([A-Za-z0-9_\\-.~+/:=]{16,512})",
	    .entropy = 3.0,
	    .flags = LEAK_RF_VALUE | LEAK_RF_GENERIC | LEAK_RF_HEX_OK |
		LEAK_RF_UUID_OK),
	RULE("http-api-key-header", "API key in an HTTP header",
	    "api-key|apikey|auth-token|access-token|private-token|"
	    "subscription-key|x-token|-key:",
	    "(?i:(?<![A-Za-z0-9_\\-])(?!sec-websocket-|idempotency-)"
	    "(?:x-)?(?:[a-z0-9]+-){0,3}"
	    "(?:api-?key|apikey|auth-token|"
	    "access-token|private-token|subscription-key|token|secret|key)"
	    "\\s*:\\s*)([A-Za-z0-9_\\-.~+/=:]{12,512})(?![A-Za-z0-9_\\-.~+/=])",
	    .entropy = 3.2,
	    .flags = LEAK_RF_WINDOW | LEAK_RF_VALUE | LEAK_RF_GENERIC |
		LEAK_RF_HEX_OK | LEAK_RF_UUID_OK,
	    .before = 64, .allow = DOC_EXAMPLES "|" PUBLIC_KEYS),

	RULE("cli-flag-secret", "Secret passed as a command-line flag",
	    "--token|--api|--password|--passwd|--secret|--client-secret|"
	    "--access|--auth|--key|--pass",
	    "--(?:token|api[_\\-]?key|apikey|password|passwd|pass|secret|"
	    "client[_\\-]secret|access[_\\-]key|access[_\\-]token|secret[_\\-]"
	    "key|"
	    "auth[_\\-]token|auth|key)(?:=|\\s+)[\"']?([^\\s\"'`;&|]{8,256})",
	    .entropy = 3.0, .before = 2, .after = 300,
	    .flags = LEAK_RF_GENERIC | LEAK_RF_VALUE | LEAK_RF_HEX_OK |
		LEAK_RF_PASSWORD),

	/* ---- generic assignments, gated by shape and entropy ----
	 * A cheap check that an assignment follows the name (LEAK_RF_ASSIGN)
	 * comes before the regex; the
	 * whole identifier around the keyword is checked for names that hold
	 * no secret (hashes, ids, lengths, public keys).  A bare "License: "
	 * names a licence (Debian copyright files, package metadata), not a
	 * licence key. */
	RULE("generic-password", "Password assigned in config or code",
	    "pass|pwd|pword",
	    "(?i:(?:password|passwd|passphrase|passcode|pass|pwd|pword)"
	    "[A-Za-z0-9_.\\-]{0,20})" GEN_ASSIGN
	    "(?:(?<=\")([^\"\\s\\\\()<>\\[\\]{}]{6,128})(?=\\\\?\")|"
	    "(?<=')([^'\\s\\\\()<>\\[\\]{}]{6,128})(?=\\\\?')|"
	    "([^\\s\"'`&;,<>()\\[\\]{}\\\\]{6,128}))",
	    .entropy = 2.4,
	    .flags = LEAK_RF_GENERIC | LEAK_RF_VALUE | LEAK_RF_PASSWORD |
		LEAK_RF_HEX_OK | LEAK_RF_ASSIGN,
	    .allow = DOC_EXAMPLES "|" PUBLIC_KEYS),
	RULE("generic-secret", "Secret assigned in config or code",
	    "secret|private|credential|signing|encryption|master",
	    "(?i:(?:secret|private[_.\\-]?key|credentials?|signing[_.\\-]?key|"
	    "encryption[_.\\-]?key|master[_.\\-]?key)[A-Za-z0-9_.\\-]{0,20}"
	    ")" GEN_ASSIGN "([^\\s\"'`&;,<>()\\[\\]{}\\\\]{8,256})",
	    .entropy = 3.0,
	    .flags = LEAK_RF_GENERIC | LEAK_RF_VALUE | LEAK_RF_HEX_OK |
		LEAK_RF_ASSIGN,
	    .value_min = 8, .allow = DOC_EXAMPLES "|" PUBLIC_KEYS),
	RULE("generic-token", "Token assigned in config or code", "token",
	    "(?i:token[A-Za-z0-9_.\\-]{0,20})" GEN_ASSIGN
	    "([^\\s\"'`&;,<>()\\[\\]{}\\\\]{12,512})",
	    .entropy = 3.2,
	    .flags = LEAK_RF_GENERIC | LEAK_RF_VALUE | LEAK_RF_HEX_OK |
		LEAK_RF_ASSIGN,
	    .value_min = 12, .allow = DOC_EXAMPLES "|" PUBLIC_KEYS),
	RULE("generic-api-key", "API key assigned in config or code",
	    "key|auth|api_secret|apisecret|api-secret|pat|license",
	    "(?i:(?<!sec-websocket-)(?<!add )(?<!pub)(?<!public)(?<!public_)"
	    "(?<!public-)(?:key|auth|(?<![a-z])pat(?![a-z])|"
	    "license(?!:[ \\t])|api[_.\\-]?secret)"
	    "[A-Za-z0-9_.\\-]{0,20})" GEN_ASSIGN
	    "([^\\s\"'`&;,<>()\\[\\]{}\\\\]{12,512})",
	    .entropy = 3.3,
	    .flags = LEAK_RF_GENERIC | LEAK_RF_VALUE | LEAK_RF_HEX_OK |
		LEAK_RF_ASSIGN,
	    .value_min = 12, .pre = pre_generic_api_key,
	    .allow = DOC_EXAMPLES "|" PUBLIC_KEYS),
};

const size_t leak_builtin_rules_count = AXG_ARRAY_LEN(leak_builtin_rules);
