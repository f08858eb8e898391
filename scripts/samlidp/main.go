// A SAML 2.0 identity provider for Capstan's tests (issue 17 item 6): crewjam/saml's samlidp
// with the key and certificate the test generates (its example main embeds a fixed key) and
// its assertions signed with RSA-SHA256 (the library defaults to RSA-SHA1, which Capstan
// refuses). Users and service providers are created over samlidp's own HTTP API
// (PUT /users/{id}, PUT /services/{id}, PUT /shortcuts/{id} for IdP-initiated responses).
// Two flags let a test make an IdP that misbehaves honestly: -signature-method rsa-sha1 (the
// library's own default) and -clock-offset (an IdP whose clock is wrong issues assertions
// outside the SP's validity window).
package main

import (
	"crypto/tls"
	"crypto/x509"
	"flag"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/crewjam/saml"
	"github.com/crewjam/saml/logger"
	"github.com/crewjam/saml/samlidp"
	dsig "github.com/russellhaering/goxmldsig"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	base := flag.String("url", "", "the IdP's base URL as browsers reach it (default http://<addr>)")
	keyFile := flag.String("key", "", "PEM private key (RSA) signing assertions")
	certFile := flag.String("cert", "", "PEM certificate of that key")
	sigMethod := flag.String("signature-method", "rsa-sha256", "rsa-sha256 or rsa-sha1")
	offset := flag.Duration("clock-offset", 0, "shift the IdP's clock (e.g. -1h issues already-expired assertions)")
	flag.Parse()

	pair, err := tls.LoadX509KeyPair(*certFile, *keyFile)
	if err != nil {
		log.Fatalf("key/cert: %v", err)
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		log.Fatalf("cert: %v", err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("listen: %v", err)
	}
	baseURL := *base
	if baseURL == "" {
		baseURL = "http://" + ln.Addr().String()
	}
	u, err := url.Parse(baseURL)
	if err != nil {
		log.Fatalf("url: %v", err)
	}
	server, err := samlidp.New(samlidp.Options{
		URL:         *u,
		Key:         pair.PrivateKey,
		Logger:      logger.DefaultLogger,
		Certificate: cert,
		Store:       &samlidp.MemoryStore{},
	})
	if err != nil {
		log.Fatalf("samlidp: %v", err)
	}
	switch *sigMethod {
	case "rsa-sha256":
		server.IDP.SignatureMethod = dsig.RSASHA256SignatureMethod
	case "rsa-sha1":
		server.IDP.SignatureMethod = dsig.RSASHA1SignatureMethod
	default:
		log.Fatalf("-signature-method: %q is neither rsa-sha256 nor rsa-sha1", *sigMethod)
	}
	if *offset != 0 {
		shift := *offset
		saml.TimeNow = func() time.Time { return time.Now().UTC().Add(shift) }
	}
	// The test reads this line to learn the port it was given.
	os.Stdout.WriteString("listening " + baseURL + "\n")
	srv := &http.Server{Handler: server, ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.Serve(ln))
}
