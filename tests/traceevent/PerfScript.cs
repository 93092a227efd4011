// perfscript: a trace.zip (or perf.data.txt) as PerfView's Linux reader sees it.
//
// Two readings of the same file, both TraceEvent's own:
//   - LinuxPerfScriptEventParser, the text parser, with the archive's symbol files as PerfView
//     gives them: every event as parsed, before any weighting;
//   - LinuxPerfScriptStackSource, what PerfView's GUI opens for a trace.zip (its CPU view, or
//     with --threadtime its Thread Time view): the samples it shows, weighted in ms.
//
// Prints, in this order:
//   event NAME N F U                  parser: events named NAME, their frames (not counting
//                                     the process and thread frames), of which unknown
//   evthread NAME PID TID N           parser: events per event name, process and thread
//   samples N                         stack source: samples it holds
//   metric M                          their summed metric (ms of CPU, or of thread time)
//   thread "PROCESS" "THREAD" N M     per process and thread frame: samples and metric
//   frame N NAME                      every other frame name, with how many samples hold it
//   state NAME M                      --threadtime: metric under CPU_TIME / BLOCKED_TIME
//   tstate "PROCESS" "THREAD" NAME N M  --threadtime: samples and metric per thread and state
//   stack M;ROOT;...;LEAF             --stacks: one line per sample, root first
//
// A frame is unknown when PerfView shows "unknown" for its module or its symbol.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.IO.Compression;
using System.Linq;
using Microsoft.Diagnostics.Tracing.StackSources;
using Microsoft.Diagnostics.Tracing.Stacks;

namespace PcTraceEvent
{
	public static class PerfScript
	{
		static string F(double v) => v.ToString("F3", CultureInfo.InvariantCulture);

		// The parser's reading: per event name, and per event name and thread.
		static void ParseEvents(string path)
		{
			var parser = new LinuxPerfScriptEventParser();
			ZipArchive archive = null;
			Stream stream;
			if (path.EndsWith(".zip", StringComparison.OrdinalIgnoreCase))
			{
				archive = ZipFile.OpenRead(path);
				var entry = archive.Entries.First(e => e.FullName.EndsWith(".data.txt", StringComparison.OrdinalIgnoreCase));
				parser.SetSymbolFile(archive);
				stream = entry.Open();
			}
			else
			{
				stream = File.OpenRead(path);
			}
			var events = new SortedDictionary<string, (long n, long frames, long unknown)>(StringComparer.Ordinal);
			var threads = new SortedDictionary<(string, int, int), long>();
			using (stream)
			{
				foreach (var ev in parser.ParseSkippingPreamble(stream))
				{
					long nframes = 0, unknown = 0;
					foreach (var frame in ev.CallerStacks)
					{
						if (frame.Kind != FrameKind.StackFrame)
							continue;
						var sf = (StackFrame)frame;
						nframes++;
						if (sf.Module == "unknown" || sf.Symbol == "unknown")
							unknown++;
					}
					events.TryGetValue(ev.EventName, out var e);
					events[ev.EventName] = (e.n + 1, e.frames + nframes, e.unknown + unknown);
					var key = (ev.EventName, ev.ProcessID, ev.ThreadID);
					threads.TryGetValue(key, out var t);
					threads[key] = t + 1;
				}
			}
			archive?.Dispose();
			foreach (var e in events)
				Console.WriteLine($"event {e.Key} {e.Value.n} {e.Value.frames} {e.Value.unknown}");
			foreach (var t in threads)
				Console.WriteLine($"evthread {t.Key.Item1} {t.Key.Item2} {t.Key.Item3} {t.Value}");
		}

		public static int Run(string[] args)
		{
			if (args.Length < 1)
			{
				Console.Error.WriteLine("usage: pc-traceevent perfscript PATH [--threadtime] [--stacks]");
				return 2;
			}
			bool threadTime = args.Contains("--threadtime");
			bool stacks = args.Contains("--stacks");
			ParseEvents(args[0]);
			var source = new LinuxPerfScriptStackSource(args[0], threadTime);

			long samples = 0;
			double metric = 0;
			var threads = new Dictionary<(string, string), (long n, double m)>();
			var frames = new Dictionary<string, long>();
			var states = new Dictionary<string, double>();
			var tstates = new Dictionary<(string, string, string), (long n, double m)>();
			var names = new List<string>();
			source.ForEach(sample =>
			{
				samples++;
				metric += sample.Metric;
				names.Clear();
				for (var s = sample.StackIndex; s != StackSourceCallStackIndex.Invalid; s = source.GetCallerIndex(s))
					names.Add(source.GetFrameName(source.GetFrameIndex(s), false));
				names.Reverse(); // root first: process, thread, ..., leaf ([state] with --threadtime)
				if (names.Count >= 2)
				{
					var key = (names[0], names[1]);
					threads.TryGetValue(key, out var t);
					threads[key] = (t.n + 1, t.m + sample.Metric);
				}
				// With --threadtime the reader puts CPU_TIME or BLOCKED_TIME as the leaf.
				int last = names.Count - (threadTime ? 1 : 0);
				foreach (var name in names.Skip(2).Take(Math.Max(0, last - 2)).Distinct())
				{
					frames.TryGetValue(name, out var n);
					frames[name] = n + 1;
				}
				if (threadTime && names.Count >= 3)
				{
					var state = names[names.Count - 1];
					states.TryGetValue(state, out var m);
					states[state] = m + sample.Metric;
					var tkey = (names[0], names[1], state);
					tstates.TryGetValue(tkey, out var tm);
					tstates[tkey] = (tm.n + 1, tm.m + sample.Metric);
				}
				if (stacks)
					Console.WriteLine("stack " + sample.Metric.ToString("R", CultureInfo.InvariantCulture) + ";" + string.Join(";", names));
			});
			Console.WriteLine($"samples {samples}");
			Console.WriteLine("metric " + F(metric));
			foreach (var t in threads.OrderBy(t => t.Key.Item1, StringComparer.Ordinal).ThenBy(t => t.Key.Item2, StringComparer.Ordinal))
				Console.WriteLine($"thread \"{t.Key.Item1}\" \"{t.Key.Item2}\" {t.Value.n} " + F(t.Value.m));
			foreach (var f in frames.OrderByDescending(f => f.Value).ThenBy(f => f.Key, StringComparer.Ordinal))
				Console.WriteLine($"frame {f.Value} {f.Key}");
			foreach (var s in states.OrderBy(s => s.Key, StringComparer.Ordinal))
				Console.WriteLine($"state {s.Key} " + F(s.Value));
			foreach (var s in tstates.OrderBy(s => s.Key.Item1, StringComparer.Ordinal).ThenBy(s => s.Key.Item2, StringComparer.Ordinal).ThenBy(s => s.Key.Item3, StringComparer.Ordinal))
				Console.WriteLine($"tstate \"{s.Key.Item1}\" \"{s.Key.Item2}\" {s.Key.Item3} {s.Value.n} " + F(s.Value.m));
			return 0;
		}
	}
}
