package io.steward.testing.cluster;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The cluster's own certificates, made fresh for every cluster directory: a CA, the API server's
 * serving certificate for loopback, an admin client certificate in {@code system:masters}, and the
 * service-account signing key. Nothing leaves the cluster's directory.
 */
final class ClusterPki {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Duration VALIDITY = Duration.ofDays(30);

  final Path caCert;
  final Path caKey;
  final Path servingCert;
  final Path servingKey;
  final Path serviceAccountKey;
  final Path serviceAccountPublicKey;

  private final Path dir;

  private ClusterPki(Path dir) {
    this.dir = dir;
    caCert = dir.resolve("ca.crt");
    caKey = dir.resolve("ca.key");
    servingCert = dir.resolve("apiserver.crt");
    servingKey = dir.resolve("apiserver.key");
    serviceAccountKey = dir.resolve("sa.key");
    serviceAccountPublicKey = dir.resolve("sa.pub");
  }

  /** Reuses the files in {@code dir} when a previous start made them, so restarts keep identities. */
  static ClusterPki createOrReuse(Path dir) {
    ClusterPki pki = new ClusterPki(dir);
    if (Files.exists(pki.serviceAccountPublicKey)) {
      return pki;
    }
    try {
      Files.createDirectories(dir);
      KeyPair ca = rsa();
      X509Certificate caCertificate = sign(ca, ca, "steward-local-ca", true, null, List.of());
      write(pki.caCert, caCertificate);
      write(pki.caKey, ca);

      pki.writeServingCertificate(ca, pki.servingKey, pki.servingCert);

      KeyPair serviceAccount = rsa();
      write(pki.serviceAccountKey, serviceAccount.getPrivate());
      write(pki.serviceAccountPublicKey, serviceAccount.getPublic());
      return pki;
    } catch (GeneralSecurityException | org.bouncycastle.operator.OperatorCreationException e) {
      throw new IllegalStateException("could not create the local cluster's certificates", e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A new serving key and certificate for the API server, signed by the cluster's CA; returns the certificate. */
  private X509Certificate writeServingCertificate(KeyPair ca, Path keyFile, Path certFile)
      throws GeneralSecurityException, IOException, org.bouncycastle.operator.OperatorCreationException {
    KeyPair serving = rsa();
    X509Certificate certificate = sign(serving, ca, "kube-apiserver", false, KeyPurposeId.id_kp_serverAuth,
        List.of(new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
            new GeneralName(GeneralName.dNSName, "localhost"),
            new GeneralName(GeneralName.dNSName, "kubernetes.default.svc")));
    write(keyFile, serving.getPrivate());
    write(certFile, certificate);
    return certificate;
  }

  /**
   * Replaces the API server's serving key and certificate with new ones from the same CA, as a
   * certificate rotation does; the API server reloads the files by itself. Each file is written aside
   * and moved into place, so the API server never reads half a file.
   */
  X509Certificate rotateServingCertificate() {
    try {
      Path key = dir.resolve("apiserver.key.new");
      Path cert = dir.resolve("apiserver.crt.new");
      X509Certificate certificate = writeServingCertificate(caKeyPair(), key, cert);
      Files.move(key, servingKey, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      Files.move(cert, servingCert, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      return certificate;
    } catch (GeneralSecurityException | org.bouncycastle.operator.OperatorCreationException e) {
      throw new IllegalStateException("could not issue a new serving certificate", e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private KeyPair caKeyPair() throws IOException {
    try (org.bouncycastle.openssl.PEMParser parser = new org.bouncycastle.openssl.PEMParser(Files.newBufferedReader(caKey))) {
      return new org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter()
          .getKeyPair((org.bouncycastle.openssl.PEMKeyPair) parser.readObject());
    }
  }

  /** A client certificate and key for {@code user} in {@code group}, made once per directory. */
  Path[] clientCertificate(String user, String group) {
    Path cert = dir.resolve(user + ".crt");
    Path key = dir.resolve(user + ".key");
    if (Files.exists(key)) {
      return new Path[] {cert, key};
    }
    try {
      KeyPair ca = caKeyPair();
      KeyPair client = rsa();
      write(cert, sign(client, ca, "CN=" + user + ",O=" + group, false, KeyPurposeId.id_kp_clientAuth, List.of()));
      write(key, client.getPrivate());
      return new Path[] {cert, key};
    } catch (GeneralSecurityException | org.bouncycastle.operator.OperatorCreationException e) {
      throw new IllegalStateException("could not issue a client certificate for " + user, e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static KeyPair rsa() throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
    generator.initialize(2048, RANDOM);
    return generator.generateKeyPair();
  }

  private static X509Certificate sign(KeyPair subject, KeyPair issuer, String name, boolean isCa,
      KeyPurposeId purpose, List<GeneralName> altNames)
      throws GeneralSecurityException, IOException, org.bouncycastle.operator.OperatorCreationException {
    X500Name subjectName = new X500Name(name.contains("=") ? name : "CN=" + name);
    X500Name issuerName = subject == issuer ? subjectName : new X500Name("CN=steward-local-ca");
    Instant now = Instant.now();
    X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(issuerName,
        new BigInteger(64, RANDOM), Date.from(now.minus(Duration.ofHours(1))),
        Date.from(now.plus(VALIDITY)), subjectName, subject.getPublic());
    JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
    builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(isCa));
    builder.addExtension(Extension.subjectKeyIdentifier, false,
        extensions.createSubjectKeyIdentifier(subject.getPublic()));
    if (isCa) {
      builder.addExtension(Extension.keyUsage, true,
          new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature));
    } else {
      builder.addExtension(Extension.keyUsage, true,
          new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
      builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
      builder.addExtension(Extension.authorityKeyIdentifier, false,
          extensions.createAuthorityKeyIdentifier(issuer.getPublic()));
    }
    if (!altNames.isEmpty()) {
      builder.addExtension(Extension.subjectAlternativeName, false,
          new GeneralNames(altNames.toArray(GeneralName[]::new)));
    }
    ContentSigner signer = new JcaContentSignerBuilder("SHA256withRSA").build(issuer.getPrivate());
    return new JcaX509CertificateConverter().getCertificate(builder.build(signer));
  }

  private static void write(Path file, Object pemObject) throws IOException {
    StringWriter text = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
      writer.writeObject(pemObject);
    }
    Files.writeString(file, text.toString());
  }
}
