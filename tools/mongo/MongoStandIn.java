import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.MongoVersion;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * MongoDB wire-compatible stand-in for the MongoDB adapters' suites: mongo-java-server with its
 * in-memory backend, bound to 127.0.0.1 on the port given as the only argument; stops on SIGTERM
 * or SIGINT. Launched from source: {@code java -cp 'target/lib/*' MongoStandIn.java 27018}.
 *
 * <p>It announces MongoDB 4.4 (wire version 9), the oldest server the Node.js driver 7 accepts;
 * mongo-java-server's own version constants stop at wire version 8. The announced version changes
 * only the handshake: the commands it implements are the same whatever it announces.
 */
public class MongoStandIn {
  /** The version announced in the handshake and in buildInfo. */
  static final MongoVersion ANNOUNCED =
      new MongoVersion() {
        @Override
        public List<Integer> getVersionArray() {
          return List.of(4, 4, 0);
        }

        @Override
        public int getWireVersion() {
          return 9;
        }
      };

  public static void main(String[] args) throws InterruptedException {
    if (args.length != 1) {
      System.err.println("usage: java -cp 'target/lib/*' MongoStandIn.java <port>");
      System.exit(2);
    }
    int port = Integer.parseInt(args[0]);
    MongoServer server = new MongoServer(new MemoryBackend().version(ANNOUNCED));
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.shutdown();
                  stopped.countDown();
                }));
    server.bind("127.0.0.1", port);
    System.out.println("mongodb stand-in listening on 127.0.0.1:" + port);
    stopped.await();
  }
}
