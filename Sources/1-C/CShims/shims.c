#include "CShims.h"

#include <malloc.h>
#include <openssl/ssl.h>

_Static_assert(sizeof(long) == 8, "AttestGate targets LP64 Linux only");

CURLcode cshim_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode cshim_curl_setopt_ptr(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode cshim_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode cshim_curl_setopt_write_cb(CURL *handle, cshim_curl_data_cb callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}

CURLcode cshim_curl_setopt_header_cb(CURL *handle, cshim_curl_data_cb callback) {
    return curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
}

CURLcode cshim_curl_setopt_xferinfo_cb(CURL *handle, cshim_curl_xferinfo_cb callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

CURLcode cshim_curl_setopt_read_cb(CURL *handle, cshim_curl_data_cb callback) {
    return curl_easy_setopt(handle, CURLOPT_READFUNCTION, callback);
}

CURLcode cshim_curl_setopt_trailer_cb(CURL *handle, cshim_curl_trailer_cb callback) {
    return curl_easy_setopt(handle, CURLOPT_TRAILERFUNCTION, callback);
}

CURLcode cshim_curl_setopt_prereq_cb(CURL *handle, cshim_curl_prereq_cb callback) {
    return curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, callback);
}

CURLcode cshim_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode cshim_curl_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode cshim_curl_getinfo_ptr(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

curl_version_info_data *cshim_curl_version_info_now(void) {
    return curl_version_info(CURLVERSION_NOW);
}

void cshim_OPENSSL_free(void *ptr) {
    OPENSSL_free(ptr);
}

STACK_OF(X509) *cshim_sk_X509_new_null(void) {
    return sk_X509_new_null();
}

int cshim_sk_X509_push(STACK_OF(X509) *stack, X509 *cert) {
    return sk_X509_push(stack, cert);
}

void cshim_sk_X509_pop_free(STACK_OF(X509) *stack) {
    sk_X509_pop_free(stack, X509_free);
}

int cshim_sk_X509_num(const STACK_OF(X509) *stack) {
    return sk_X509_num(stack);
}

X509 *cshim_sk_X509_value(const STACK_OF(X509) *stack, int index) {
    return sk_X509_value(stack, index);
}

void cshim_sk_X509_free(STACK_OF(X509) *stack) {
    sk_X509_free(stack);
}

int cshim_sk_ASN1_OBJECT_num(const STACK_OF(ASN1_OBJECT) *stack) {
    return sk_ASN1_OBJECT_num(stack);
}

ASN1_OBJECT *cshim_sk_ASN1_OBJECT_value(const STACK_OF(ASN1_OBJECT) *stack, int index) {
    return sk_ASN1_OBJECT_value(stack, index);
}

void cshim_sk_ASN1_OBJECT_pop_free(STACK_OF(ASN1_OBJECT) *stack) {
    sk_ASN1_OBJECT_pop_free(stack, ASN1_OBJECT_free);
}

STACK_OF(X509) *cshim_PKCS7_signed_certs(PKCS7 *p7) {
    return PKCS7_type_is_signed(p7) && p7->d.sign != NULL ? p7->d.sign->cert : NULL;
}

int cshim_openssl_init_without_config(void) {
    return OPENSSL_init_ssl(OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_LOAD_CRYPTO_STRINGS, NULL);
}

int cshim_malloc_set_arena_max(int arenas) { return mallopt(M_ARENA_MAX, arenas); }
