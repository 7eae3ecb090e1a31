/*
 * Adds (or updates) SCRAM-SHA-512 credentials of Kafka users on a running cluster, through the
 * Admin API: what kafkajs cannot do. Run by `stack:up` with the broker's own jars on the class path:
 *
 *   java -cp '<kafka libs>/*' infra/java/ScramUsers.java <admin client properties file>
 *
 * reading one `<user> <password>` line per user from standard input, so that no password appears
 * on a command line.
 */
import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;

public class ScramUsers {
  public static void main(String[] args) throws Exception {
    Properties properties = new Properties();
    try (FileInputStream in = new FileInputStream(args[0])) {
      properties.load(in);
    }
    List<UserScramCredentialAlteration> alterations = new ArrayList<>();
    BufferedReader lines =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = lines.readLine(); line != null; line = lines.readLine()) {
      String[] fields = line.trim().split(" ", 2);
      if (fields.length != 2) continue;
      ScramCredentialInfo info = new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192);
      alterations.add(new UserScramCredentialUpsertion(fields[0], info, fields[1]));
    }
    try (Admin admin = Admin.create(properties)) {
      admin.alterUserScramCredentials(alterations).all().get();
    }
    System.out.println("upserted " + alterations.size() + " SCRAM user(s)");
  }
}
