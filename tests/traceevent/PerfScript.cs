// perfscript: a trace.zip (or perf.data.txt) as PerfView's Linux reader sees it.
//
// Prints, in this order:
//   samples N                      samples the stack source holds
//   metric M                       their summed metric (ms of CPU, or of thread time)
//   thread "PROCESS" "THREAD" N M  per process and thread frame: samples and metric
//   frame N NAME                   every other frame name, with how many samples hold it
//   state NAME M                   --threadtime: metric under CPU_TIME / BLOCKED_TIME
//   stack M;ROOT;...;LEAF          --stacks: one line per sample, root first
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using Microsoft.Diagnostics.Tracing.StackSources;
using Microsoft.Diagnostics.Tracing.Stacks;

namespace PcTraceEvent
{
	public static class PerfScript
	{
		public static int Run(string[] args)
		{
			if (args.Length < 1)
			{
				Console.Error.WriteLine("usage: pc-traceevent perfscript PATH [--threadtime] [--stacks]");
				return 2;
			}
			bool threadTime = args.Contains("--threadtime");
			bool stacks = args.Contains("--stacks");
			var source = new LinuxPerfScriptStackSource(args[0], threadTime);

			long samples = 0;
			double metric = 0;
			var threads = new Dictionary<(string, string), (long n, double m)>();
			var frames = new Dictionary<string, long>();
			var states = new Dictionary<string, double>();
			var names = new List<string>();
			source.ForEach(sample =>
			{
				samples++;
				metric += sample.Metric;
				names.Clear();
				for (var s = sample.StackIndex; s != StackSourceCallStackIndex.Invalid; s = source.GetCallerIndex(s))
					names.Add(source.GetFrameName(source.GetFrameIndex(s), false));
				names.Reverse(); // root first: process, thread, [state], ..., leaf
				if (names.Count >= 2)
				{
					var key = (names[0], names[1]);
					threads.TryGetValue(key, out var t);
					threads[key] = (t.n + 1, t.m + sample.Metric);
				}
				foreach (var name in names.Skip(2).Distinct())
				{
					frames.TryGetValue(name, out var n);
					frames[name] = n + 1;
				}
				if (threadTime && names.Count >= 3)
				{
					states.TryGetValue(names[2], out var m);
					states[names[2]] = m + sample.Metric;
				}
				if (stacks)
					Console.WriteLine("stack " + sample.Metric.ToString("R", CultureInfo.InvariantCulture) + ";" + string.Join(";", names));
			});
			Console.WriteLine($"samples {samples}");
			Console.WriteLine("metric " + metric.ToString("F3", CultureInfo.InvariantCulture));
			foreach (var t in threads.OrderBy(t => t.Key.Item1, StringComparer.Ordinal).ThenBy(t => t.Key.Item2, StringComparer.Ordinal))
				Console.WriteLine($"thread \"{t.Key.Item1}\" \"{t.Key.Item2}\" {t.Value.n} " + t.Value.m.ToString("F3", CultureInfo.InvariantCulture));
			foreach (var f in frames.OrderByDescending(f => f.Value).ThenBy(f => f.Key, StringComparer.Ordinal))
				Console.WriteLine($"frame {f.Value} {f.Key}");
			foreach (var s in states.OrderBy(s => s.Key, StringComparer.Ordinal))
				Console.WriteLine($"state {s.Key} " + s.Value.ToString("F3", CultureInfo.InvariantCulture));
			return 0;
		}
	}
}
